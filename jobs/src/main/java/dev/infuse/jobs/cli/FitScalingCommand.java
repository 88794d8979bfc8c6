package dev.infuse.jobs.cli;

import dev.infuse.jobs.JobRun;
import dev.infuse.jobs.RunCounts;
import dev.infuse.jobs.config.ConfigLoader;
import dev.infuse.jobs.score.FitScalingJob;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(
    name = "fit-scaling",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Fit metric = a + b ln(synthetic tokens) over scored runs (Spark MLlib LinearRegression) and where it",
      "crosses a baseline setting's score; writes scaling_fits. Reads scores: run score on the sweep first."
    })
public final class FitScalingCommand extends JobCommand {
  @Option(
      names = "--benchmark",
      paramLabel = "NAME",
      description = "The sweep's benchmark (score.scaling_benchmark).")
  String benchmark;

  @Option(
      names = "--setting",
      paramLabel = "SETTING",
      description = "The sweep's setting (score.scaling_setting, default trained).")
  String setting;

  @Option(
      names = "--runs",
      paramLabel = "RUN[,RUN...]",
      split = ",",
      description =
          "The sweep's runs (score.scaling_runs); default every scored run of the setting with synthetic_tokens.")
  List<String> runs;

  @Option(
      names = "--metric",
      paramLabel = "accuracy|acc_norm",
      description = "The metric fitted (score.scaling_metric).")
  String metric;

  @Option(
      names = "--baseline-setting",
      paramLabel = "SETTING",
      description = "The baseline (score.scaling_baseline_setting, default rag).")
  String baselineSetting;

  @Option(
      names = "--baseline-run",
      paramLabel = "RUN",
      description = "The baseline run (score.scaling_baseline_run).")
  String baselineRun;

  @Override
  protected String jobName() {
    return FitScalingJob.NAME;
  }

  @Override
  protected void applyFlags(ConfigLoader loader) {
    if (benchmark != null) {
      loader.setString("score.scaling_benchmark", benchmark);
    }
    if (setting != null) {
      loader.setString("score.scaling_setting", setting);
    }
    if (runs != null) {
      loader.set("score.scaling_runs=" + ScoreCommand.flowList(runs));
    }
    if (metric != null) {
      loader.setString("score.scaling_metric", metric);
    }
    if (baselineSetting != null) {
      loader.setString("score.scaling_baseline_setting", baselineSetting);
    }
    if (baselineRun != null) {
      loader.setString("score.scaling_baseline_run", baselineRun);
    }
  }

  @Override
  protected RunCounts execute(JobRun run) {
    return new FitScalingJob(run).run();
  }
}
