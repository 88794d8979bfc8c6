package dev.infuse.jobs.cli;

import dev.infuse.jobs.score.ScoreJob;
import java.util.Arrays;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;

@Command(
    name = "score",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    header = "Grade predictions: accuracy with bootstrap CIs, comparisons.",
    description = {
      "Accuracy (and acc_norm for loglikelihood runs) overall and per subset, with seeded "
          + "percentile bootstrap CIs. FinanceBench free answers are graded by numeric tolerance, "
          + "then by the LLM judge. --compare A,B (repeatable) adds the paired bootstrap of B - A "
          + "to score_comparisons."
    })
public final class ScoreCommand extends JobCommand {
  @Option(
      names = "--runs",
      paramLabel = "RUN",
      split = ",",
      converter = Trimmed.class,
      description = "Predictions runs to score; default every run in predictions.")
  @ConfigKey("score.runs")
  List<String> runs;

  @Option(
      names = "--compare",
      paramLabel = "RUN_A,RUN_B",
      converter = RunPair.class,
      description = "Compare run B with run A on their shared questions; repeat for more pairs.")
  @ConfigKey("score.compare")
  List<String[]> compare;

  @Option(names = "--resamples", paramLabel = "N", description = "Bootstrap resamples.")
  @ConfigKey("score.bootstrap_resamples")
  Integer resamples;

  @Option(names = "--seed", paramLabel = "N", description = "Bootstrap seed; default run.seed.")
  @ConfigKey("score.seed")
  Long seed;

  @Option(
      names = "--tolerance",
      paramLabel = "FRACTION",
      description = "Relative tolerance of numeric grading.")
  @ConfigKey("score.numeric_tolerance")
  Double tolerance;

  @Option(
      names = "--judge",
      paramLabel = "auto|on|off",
      description = "The LLM judge for non-numeric free answers.")
  @ConfigKey("score.judge")
  String judge;

  @Option(
      names = "--behavior-runs",
      paramLabel = "RUN",
      split = ",",
      converter = Trimmed.class,
      description =
          "Behaviour answer runs to score into behavior_scores (macro-F1, MEDEC's metrics);"
              + " latest for the latest.")
  @ConfigKey("score.behavior_runs")
  List<String> behaviorRuns;

  public ScoreCommand() {
    super(ScoreJob.NAME, run -> new ScoreJob(run).run());
  }

  /** A run id as given, without the spaces around it. */
  static final class Trimmed implements ITypeConverter<String> {
    @Override
    public String convert(String value) {
      return value.strip();
    }
  }

  /**
   * {@code RUN_A,RUN_B} as the pair {@code [RUN_A, RUN_B]} (an array: picocli would flatten a list
   * into the option's values); the config says what a pair needs.
   */
  static final class RunPair implements ITypeConverter<String[]> {
    @Override
    public String[] convert(String value) {
      return Arrays.stream(value.split(",", -1)).map(String::strip).toArray(String[]::new);
    }
  }
}
