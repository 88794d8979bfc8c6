package dev.infuse.jobs.cli;

import dev.infuse.jobs.score.FitScalingJob;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(
    name = "fit-scaling",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    header = "Fit accuracy = a + b ln(synthetic tokens) over a sweep.",
    description = {
      "Spark MLlib LinearRegression, and where the line crosses a baseline setting's score. "
          + "Reads scores: run score on the sweep first."
    })
public final class FitScalingCommand extends JobCommand {
  @Option(names = "--benchmark", paramLabel = "NAME", description = "The sweep's benchmark.")
  @ConfigKey("score.scaling_benchmark")
  String benchmark;

  @Option(names = "--setting", paramLabel = "SETTING", description = "The sweep's setting.")
  @ConfigKey("score.scaling_setting")
  String setting;

  @Option(
      names = "--runs",
      paramLabel = "RUN",
      split = ",",
      converter = ScoreCommand.Trimmed.class,
      description =
          "The sweep's runs; default every scored run of the setting with synthetic_tokens.")
  @ConfigKey("score.scaling_runs")
  List<String> runs;

  @Option(names = "--metric", paramLabel = "accuracy|acc_norm", description = "The metric fitted.")
  @ConfigKey("score.scaling_metric")
  String metric;

  @Option(
      names = "--baseline-setting",
      paramLabel = "SETTING",
      description = "The setting the line is compared with.")
  @ConfigKey("score.scaling_baseline_setting")
  String baselineSetting;

  @Option(names = "--baseline-run", paramLabel = "RUN", description = "The baseline run.")
  @ConfigKey("score.scaling_baseline_run")
  String baselineRun;

  @Option(
      names = "--tokens",
      paramLabel = "unique|seen",
      description =
          "The x-axis: unique synthetic tokens (the papers', default) or seen (with repetitions).")
  @ConfigKey("score.scaling_tokens")
  String tokens;

  @Option(
      names = "--subset",
      paramLabel = "SUBSET",
      description = "The scores subset fitted, and the baseline's (all, held_out, trained, ...).")
  @ConfigKey("score.scaling_subset")
  String subset;

  @Option(
      names = "--label",
      paramLabel = "NAME",
      description = "A name for the sweep (e.g. its mixture), shown by the report.")
  @ConfigKey("score.scaling_label")
  String label;

  public FitScalingCommand() {
    super(FitScalingJob.NAME, run -> new FitScalingJob(run).run());
  }
}
