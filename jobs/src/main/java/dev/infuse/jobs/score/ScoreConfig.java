package dev.infuse.jobs.score;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import dev.infuse.jobs.config.ConfigSection;
import dev.infuse.udfs.answer.Setting;
import dev.infuse.udfs.common.EnumNames;
import dev.infuse.udfs.llm.LlmBackend;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@code score} section, of the {@code score} and {@code fit-scaling} jobs. See defaults.yaml
 * for each key.
 *
 * @param runs predictions runs to score; empty for every run in {@code predictions}
 * @param bootstrapResamples resamples of every percentile and paired bootstrap (at least 100)
 * @param confidence the intervals' coverage, strictly between 0 and 1
 * @param seed the bootstrap seed; null takes {@code run.seed}
 * @param numericTolerance relative tolerance of FinanceBench numeric grading
 * @param judge the LLM judge for free answers that are not numeric: auto (on unless the backend is
 *     extractive, which cannot judge), on, off
 * @param judgeMaxTokens the judge's completion budget
 * @param compare pairs of predictions runs {@code [[a, b], ...]} to compare with the paired
 *     bootstrap (b - a); empty for none
 * @param scalingBenchmark the benchmark of the scaling sweep; null: the only benchmark the sweep's
 *     runs share
 * @param scalingSetting the setting whose runs form the sweep (trained)
 * @param scalingMetric the scores metric fitted (accuracy)
 * @param scalingRuns the sweep's runs; empty for every scored run of the benchmark and setting with
 *     synthetic_tokens
 * @param scalingBaselineSetting the setting the line is compared with (rag); null for none
 * @param scalingBaselineRun the baseline run; null: the only scored run of that setting on the
 *     benchmark
 * @param scalingTokens the x-axis: unique (the papers') or seen synthetic tokens
 * @param scalingSubset the scores subset fitted, and of the baseline (all)
 * @param scalingLabel the sweep's name in scaling_fits and the report (e.g. its mixture); null for
 *     none
 * @param discussions MAPoRL discussions (rollouts.discussion_id) whose per-turn metrics go to
 *     discussion_scores; {@code latest} for those of the latest discuss run; empty for none. With
 *     discussions and no {@code runs}, predictions are not scored
 * @param behaviorRuns behaviour answer runs (behavior_predictions.run_id) whose behaviour metrics
 *     go to behavior_scores; {@code latest} for the latest; empty for none. With behaviour runs and
 *     no {@code runs}, predictions are not scored
 */
public record ScoreConfig(
    List<String> runs,
    int bootstrapResamples,
    double confidence,
    Long seed,
    double numericTolerance,
    Judge judge,
    int judgeMaxTokens,
    List<List<String>> compare,
    String scalingBenchmark,
    Setting scalingSetting,
    Metric scalingMetric,
    List<String> scalingRuns,
    Setting scalingBaselineSetting,
    String scalingBaselineRun,
    ScalingTokens scalingTokens,
    String scalingSubset,
    String scalingLabel,
    List<String> discussions,
    List<String> behaviorRuns)
    implements ConfigSection {

  /**
   * Which synthetic token count a scaling fit's x-axis is. Runs of models trained before the counts
   * were recorded have neither; a fit over them falls back to {@code synthetic_tokens} and says so
   * (token_count {@code written}).
   */
  public enum ScalingTokens {
    /** Each distinct synthetic text once, in the count tokenizer: the papers' axis. */
    UNIQUE,
    /** With the mixture's repetitions: what the model was trained on. */
    SEEN;

    @JsonValue
    public String id() {
      return EnumNames.id(this);
    }

    /** As spelled in config, so messages read like the YAML. */
    @Override
    public String toString() {
      return id();
    }

    @JsonCreator
    public static ScalingTokens fromName(String name) {
      return EnumNames.parse(ScalingTokens.class, name);
    }
  }

  /** Whether free answers that are not numeric go to the LLM judge. */
  public enum Judge {
    /** On, unless the backend is extractive, which cannot judge. */
    AUTO,
    ON,
    OFF;

    @JsonValue
    public String id() {
      return EnumNames.id(this);
    }

    /** As spelled in config, so messages read like the YAML. */
    @Override
    public String toString() {
      return id();
    }

    @JsonCreator
    public static Judge fromName(String name) {
      return EnumNames.parse(Judge.class, name);
    }
  }

  /** A metric of {@code scores}, as its {@code metric} column names it. */
  public enum Metric {
    /** The share of questions answered right. */
    ACCURACY,
    /**
     * The share of the questions whose answer parsed that were answered right (EntiGraph's
     * overall_accuracy).
     */
    ACCURACY_ATTEMPTED,
    /** For loglikelihood runs: the option with the best log-likelihood per character. */
    ACC_NORM;

    @JsonValue
    public String id() {
      return EnumNames.id(this);
    }

    /** As spelled in config, so messages read like the YAML. */
    @Override
    public String toString() {
      return id();
    }

    @JsonCreator
    public static Metric fromName(String name) {
      return EnumNames.parse(Metric.class, name);
    }
  }

  /** The bootstrap seed: {@code score.seed}, else {@code run.seed}. */
  public long seedOr(long runSeed) {
    return seed == null ? runSeed : seed;
  }

  /** Whether free answers that are not numeric go to the LLM judge with this backend. */
  public boolean judgeWith(LlmBackend backend) {
    return judge == Judge.ON || judge == Judge.AUTO && backend != LlmBackend.EXTRACTIVE;
  }

  @Override
  public List<String> problems() {
    List<String> problems = new ArrayList<>();
    if (scalingSubset == null || scalingSubset.isBlank()) {
      problems.add(
          "scaling_subset: got "
              + (scalingSubset == null ? "null" : "'" + scalingSubset + "'")
              + ", expected a scores subset such as all, held_out or trained");
    }
    if (scalingLabel != null && scalingLabel.isBlank()) {
      problems.add("scaling_label: got '', expected a name for the sweep, or null for none");
    }
    if (bootstrapResamples < 100) {
      problems.add(
          "bootstrap_resamples: got " + bootstrapResamples + ", expected an integer >= 100");
    }
    if (!(confidence > 0 && confidence < 1)) {
      problems.add(
          "confidence: got "
              + confidence
              + ", expected a fraction strictly between 0 and 1, e.g. 0.95");
    }
    if (!(numericTolerance >= 0 && numericTolerance < 1)) {
      problems.add(
          "numeric_tolerance: got "
              + numericTolerance
              + ", expected a relative tolerance in [0, 1), e.g. 0.01");
    }
    if (judge == null) {
      problems.add("judge: got nothing, expected auto, on or off");
    }
    if (judgeMaxTokens < 1) {
      problems.add("judge_max_tokens: got " + judgeMaxTokens + ", expected an integer >= 1");
    }
    for (List<String> pair : compare) {
      if (pair.size() != 2 || pair.get(0).equals(pair.get(1))) {
        problems.add(
            "compare: got pair "
                + pair
                + ", expected two different run ids [a, b] in each pair: [[a, b], ...], or []");
      }
    }
    if (scalingSetting == null) {
      problems.add(
          "scaling_setting: got nothing, expected closed_book, rag, trained or trained_rag");
    }
    if (scalingMetric == null) {
      problems.add(
          "scaling_metric: got nothing, expected accuracy, accuracy_attempted or acc_norm");
    }
    if (scalingTokens == null) {
      problems.add("scaling_tokens: got nothing, expected unique or seen");
    }
    if (scalingRuns.size() == 1) {
      problems.add("scaling_runs: got 1 run, expected 2 or more, or [] for every run of the sweep");
    }
    return problems;
  }
}
