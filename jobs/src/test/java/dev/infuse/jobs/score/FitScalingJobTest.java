package dev.infuse.jobs.score;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.infuse.jobs.SparkTestSession;
import dev.infuse.jobs.SparkTestSession.CliResult;
import dev.infuse.jobs.contract.Contract;
import dev.infuse.jobs.contract.Contracts;
import dev.infuse.jobs.io.Warehouse;
import dev.infuse.jobs.spark.SparkRows;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.junit.jupiter.api.Test;

class FitScalingJobTest {
  @Test
  void recoversAKnownSlopeFromNoisyPointsWithinItsStandardError() {
    double trueSlope = 0.035;
    double trueIntercept = 0.05;
    SplittableRandom random = new SplittableRandom(7);
    List<Row> points = new ArrayList<>();
    double[] x = new double[12];
    double[] y = new double[12];
    for (int i = 0; i < 12; i++) {
      long tokens = Math.round(1000 * Math.pow(3, i));
      x[i] = Math.log(tokens);
      // Gaussian noise, sd 0.01, by Box-Muller from the seeded stream.
      double noise =
          0.01
              * Math.sqrt(-2 * Math.log(1 - random.nextDouble()))
              * Math.cos(2 * Math.PI * random.nextDouble());
      y[i] = trueIntercept + trueSlope * x[i] + noise;
      points.add(RowFactory.create("r" + i, tokens, y[i]));
    }
    FitScalingJob.Fit fit = FitScalingJob.fit(SparkTestSession.get(), points);
    assertThat(fit.slopeSe()).isNotNull().isPositive();
    assertThat(Math.abs(fit.slope() - trueSlope)).isLessThanOrEqualTo(3 * fit.slopeSe());
    assertThat(fit.r2()).isGreaterThan(0.95);

    // The same numbers as closed-form least squares, and the textbook slope SE sqrt(s^2 / Sxx).
    double mx = mean(x);
    double my = mean(y);
    double sxx = 0;
    double sxy = 0;
    for (int i = 0; i < x.length; i++) {
      sxx += (x[i] - mx) * (x[i] - mx);
      sxy += (x[i] - mx) * (y[i] - my);
    }
    double slope = sxy / sxx;
    double intercept = my - slope * mx;
    double rss = 0;
    for (int i = 0; i < x.length; i++) {
      double r = y[i] - intercept - slope * x[i];
      rss += r * r;
    }
    assertThat(fit.slope()).isCloseTo(slope, within(1e-9));
    assertThat(fit.intercept()).isCloseTo(intercept, within(1e-9));
    assertThat(fit.slopeSe()).isCloseTo(Math.sqrt(rss / (x.length - 2) / sxx), within(1e-9));
  }

  @Test
  void twoPointsFitExactlyWithNoStandardError() {
    FitScalingJob.Fit fit =
        FitScalingJob.fit(
            SparkTestSession.get(),
            List.of(RowFactory.create("a", 100L, 0.3), RowFactory.create("b", 10_000L, 0.5)));
    assertThat(fit.slope()).isCloseTo(0.2 / Math.log(100), within(1e-9));
    assertThat(fit.slopeSe()).isNull();
  }

  @Test
  void aSweepOverTwoGeneratorsGivesOneFitEachOnUniqueTokensByDefault() {
    String warehouse = SparkTestSession.tempDir("scaling-generators").toString();
    Warehouse w = new Warehouse(SparkTestSession.get(), warehouse);
    String small = "openai:small-model";
    String large = "openai:large-model";
    String llama = "/models/llama/tokenizer.json";
    List<Row> scores = new ArrayList<>();
    long[] unique = {1_000, 10_000, 100_000};
    for (int i = 0; i < unique.length; i++) {
      double x = Math.log(unique[i]);
      // synthetic_tokens (written, another tokenizer) and seen (3 epochs) differ from unique: a fit
      // on either would find another intercept.
      scores.add(
          score(
              "s" + i,
              "trained",
              0.1 + 0.04 * x,
              7 * unique[i],
              unique[i],
              3 * unique[i],
              llama,
              small));
      scores.add(
          score(
              "l" + i,
              "trained",
              0.2 + 0.05 * x,
              7 * unique[i],
              unique[i],
              3 * unique[i],
              llama,
              large));
    }
    // Two runs of models trained before the counts existed: neither unique nor a generator.
    scores.add(score("old0", "trained", 0.3, 5_000L, null, null, null, null));
    scores.add(score("old1", "trained", 0.4, 50_000L, null, null, null, null));
    scores.add(score("rag", "rag", 0.6, null, null, null, null, null));
    Contract contract = Contracts.load("scores");
    w.upsert(contract, SparkTestSession.get().createDataFrame(scores, contract.schema()));

    CliResult result = SparkTestSession.cli("fit-scaling", "--warehouse", warehouse);
    assertThat(result.code()).as(result.toString()).isZero();
    List<Row> fits = w.read("scaling_fits").orderBy("generator").collectAsList();
    assertThat(fits).hasSize(3);
    Row old = fits.get(0);
    assertThat(old.<String>getAs("generator")).isNull();
    assertThat(old.<String>getAs("token_count")).isEqualTo(FitScalingJob.WRITTEN);
    assertThat(old.<String>getAs("count_tokenizer")).isNull();
    assertThat(old.<Double>getAs("slope")).isCloseTo(0.1 / Math.log(10), within(1e-9));
    Row largeFit = fits.get(1);
    assertThat(largeFit.<String>getAs("generator")).isEqualTo(large);
    assertThat(largeFit.<String>getAs("token_count")).isEqualTo("unique");
    assertThat(largeFit.<String>getAs("count_tokenizer")).isEqualTo(llama);
    assertThat(largeFit.<Double>getAs("slope")).isCloseTo(0.05, within(1e-9));
    assertThat(largeFit.<Double>getAs("intercept")).isCloseTo(0.2, within(1e-9));
    assertThat(largeFit.<Double>getAs("baseline_value")).isEqualTo(0.6);
    assertThat(largeFit.<Double>getAs("crossover_tokens"))
        .isCloseTo(Math.exp(0.4 / 0.05), within(Math.exp(8) * 1e-6));
    assertThat(
            largeFit.<Row>getList(largeFit.fieldIndex("points")).stream()
                .map(p -> p.<String>getAs("run_id"))
                .toList())
        .containsExactly("l0", "l1", "l2");
    Row smallFit = fits.get(2);
    assertThat(smallFit.<String>getAs("generator")).isEqualTo(small);
    assertThat(smallFit.<Double>getAs("slope")).isCloseTo(0.04, within(1e-9));
    assertThat(smallFit.<Double>getAs("intercept")).isCloseTo(0.1, within(1e-9));
    assertThat(result.out())
        .contains("generator " + small)
        .contains("ln(unique synthetic tokens (tokenizer " + llama + "))");

    // On seen tokens (three times unique): the same slope, the intercept moved by slope * ln 3.
    CliResult seen =
        SparkTestSession.cli(
            "fit-scaling", "--warehouse", warehouse, "--tokens", "seen", "--runs", "s0,s1,s2");
    assertThat(seen.code()).as(seen.toString()).isZero();
    Row seenFit = w.read("scaling_fits").filter("token_count = 'seen'").head();
    assertThat(seenFit.<String>getAs("generator")).isEqualTo(small);
    assertThat(seenFit.<Double>getAs("slope")).isCloseTo(0.04, within(1e-9));
    assertThat(seenFit.<Double>getAs("intercept"))
        .isCloseTo(0.1 - 0.04 * Math.log(3), within(1e-9));

    CliResult bad =
        SparkTestSession.cli("fit-scaling", "--warehouse", warehouse, "--tokens", "all");
    assertThat(bad.code()).isEqualTo(2);
    assertThat(bad.err()).contains("score.scaling_tokens").contains("unique");
  }

  @Test
  void aSubsetIsFittedAgainstTheBaselineOnThatSubsetAndTheLabelNamesTheSweep() {
    String warehouse = SparkTestSession.tempDir("scaling-subsets").toString();
    Warehouse w = new Warehouse(SparkTestSession.get(), warehouse);
    String gen = "extractive:extractive-v1";
    List<Row> scores = new ArrayList<>();
    long[] seen = {20_000, 60_000};
    for (int i = 0; i < seen.length; i++) {
      double x = Math.log(seen[i]);
      scores.add(subsetScore("m" + i, "trained", "all", 0.30 + 0.01 * x, seen[i], gen));
      scores.add(subsetScore("m" + i, "trained", "held_out", 0.20 + 0.02 * x, seen[i], gen));
      scores.add(subsetScore("m" + i, "trained", "trained", 0.40 + 0.03 * x, seen[i], gen));
    }
    scores.add(subsetScore("rag", "rag", "all", 0.5, null, null));
    scores.add(subsetScore("rag", "rag", "held_out", 0.45, null, null));
    scores.add(subsetScore("rag", "rag", "trained", 0.55, null, null));
    Contract contract = Contracts.load("scores");
    w.upsert(contract, SparkTestSession.get().createDataFrame(scores, contract.schema()));

    for (String subset : List.of("held_out", "trained")) {
      CliResult result =
          SparkTestSession.cli(
              "fit-scaling",
              "--warehouse",
              warehouse,
              "--tokens",
              "seen",
              "--set",
              "score.scaling_subset=" + subset,
              "--set",
              "score.scaling_label=facts-mixed");
      assertThat(result.code()).as(result.toString()).isZero();
      assertThat(result.out()).contains("(subset " + subset + ")").contains("[facts-mixed]");
    }
    List<Row> fits = w.read("scaling_fits").orderBy("subset").collectAsList();
    assertThat(fits).hasSize(2);
    assertThat(fits).extracting(r -> r.<String>getAs("label")).containsOnly("facts-mixed");
    Row heldOut = fits.get(0);
    assertThat(heldOut.<String>getAs("subset")).isEqualTo("held_out");
    assertThat(heldOut.<Double>getAs("slope")).isCloseTo(0.02, within(1e-9));
    assertThat(heldOut.<Double>getAs("baseline_value")).isEqualTo(0.45);
    Row trained = fits.get(1);
    assertThat(trained.<String>getAs("subset")).isEqualTo("trained");
    assertThat(trained.<Double>getAs("intercept")).isCloseTo(0.40, within(1e-9));
    assertThat(trained.<Double>getAs("baseline_value")).isEqualTo(0.55);
    assertThat(trained.<String>getAs("fit_id")).isNotEqualTo(heldOut.<String>getAs("fit_id"));

    CliResult blank =
        SparkTestSession.cli(
            "fit-scaling", "--warehouse", warehouse, "--set", "score.scaling_subset=''");
    assertThat(blank.code()).isEqualTo(2);
    assertThat(blank.err())
        .contains("score.scaling_subset: got '', expected a scores subset such as all");
  }

  private static Row subsetScore(
      String runId, String setting, String subset, double value, Long seen, String generator) {
    return RowFactory.create(
        runId,
        "quality",
        subset,
        setting,
        "tiny",
        "accuracy",
        value,
        600L,
        value - 0.05,
        value + 0.05,
        seen,
        seen,
        seen,
        seen == null ? null : "default",
        generator,
        "h",
        SparkRows.seq(List.of("quality-ll@1")),
        "sha",
        "score-x");
  }

  private static Row score(
      String runId,
      String setting,
      double value,
      Long written,
      Long unique,
      Long seen,
      String tokenizer,
      String generator) {
    return RowFactory.create(
        runId,
        "quality",
        "all",
        setting,
        "tiny",
        "accuracy",
        value,
        100L,
        value - 0.05,
        value + 0.05,
        written,
        unique,
        seen,
        tokenizer,
        generator,
        "h",
        SparkRows.seq(List.of("quality-mcq@1")),
        "sha",
        "score-x");
  }

  private static double mean(double[] values) {
    double sum = 0;
    for (double v : values) {
      sum += v;
    }
    return sum / values.length;
  }
}
