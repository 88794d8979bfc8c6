package dev.infuse.jobs.cli;

import dev.infuse.jobs.JobRun;
import dev.infuse.jobs.RunCounts;
import dev.infuse.jobs.config.ConfigLoader;
import dev.infuse.jobs.score.ScoreJob;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(
    name = "score",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Grade predictions against questions and write scores: accuracy (and acc_norm for loglikelihood runs)",
      "overall and per subset, with seeded percentile bootstrap CIs. FinanceBench free answers are graded by numeric",
      "tolerance, then by the LLM judge. --compare A,B (repeatable) adds the paired bootstrap of B - A to score_comparisons."
    })
public final class ScoreCommand extends JobCommand {
  @Option(
      names = "--runs",
      paramLabel = "RUN[,RUN...]",
      split = ",",
      description = "Predictions runs to score (score.runs); default every run in predictions.")
  List<String> runs;

  @Option(
      names = "--compare",
      paramLabel = "RUN_A,RUN_B",
      description =
          "Compare run B with run A on their shared questions (score.compare); repeat for more pairs.")
  List<String> compare;

  @Option(
      names = "--resamples",
      paramLabel = "N",
      description = "Bootstrap resamples (score.bootstrap_resamples, default 1000).")
  Integer resamples;

  @Option(
      names = "--seed",
      paramLabel = "N",
      description = "Bootstrap seed (score.seed; default run.seed).")
  Long seed;

  @Option(
      names = "--tolerance",
      paramLabel = "FRACTION",
      description =
          "Relative tolerance of numeric grading (score.numeric_tolerance, default 0.01).")
  Double tolerance;

  @Option(
      names = "--judge",
      paramLabel = "auto|on|off",
      description = "The LLM judge for non-numeric free answers (score.judge).")
  String judge;

  @Override
  protected String jobName() {
    return ScoreJob.NAME;
  }

  @Override
  protected void applyFlags(ConfigLoader loader) {
    if (runs != null) {
      loader.set("score.runs=" + flowList(runs));
    }
    if (compare != null) {
      StringBuilder pairs = new StringBuilder("[");
      for (String pair : compare) {
        pairs
            .append(pairs.length() == 1 ? "" : ", ")
            .append(flowList(List.of(pair.split(",", -1))));
      }
      loader.set("score.compare=" + pairs.append(']'));
    }
    if (resamples != null) {
      loader.set("score.bootstrap_resamples=" + resamples);
    }
    if (seed != null) {
      loader.set("score.seed=" + seed);
    }
    if (tolerance != null) {
      loader.set("score.numeric_tolerance=" + tolerance);
    }
    if (judge != null) {
      loader.setString("score.judge", judge);
    }
  }

  /** A YAML flow list of quoted strings, so run ids are never read as numbers or booleans. */
  static String flowList(List<String> values) {
    StringBuilder out = new StringBuilder("[");
    for (int i = 0; i < values.size(); i++) {
      out.append(i == 0 ? "" : ", ")
          .append('\'')
          .append(values.get(i).strip().replace("'", "''"))
          .append('\'');
    }
    return out.append(']').toString();
  }

  @Override
  protected RunCounts execute(JobRun run) {
    return new ScoreJob(run).run();
  }
}
