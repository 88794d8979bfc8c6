package dev.infuse.jobs.score;

import static org.apache.spark.sql.functions.col;

import dev.infuse.jobs.config.ConfigException;
import dev.infuse.jobs.contract.Contract;
import dev.infuse.jobs.contract.Contracts;
import dev.infuse.jobs.io.Warehouse;
import dev.infuse.jobs.io.WriteResult;
import dev.infuse.jobs.run.JobRun;
import dev.infuse.jobs.run.RunCounts;
import dev.infuse.jobs.spark.SparkRows;
import dev.infuse.udfs.common.Keys;
import dev.infuse.udfs.score.ScalingCurve;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.spark.ml.linalg.SQLDataTypes;
import org.apache.spark.ml.linalg.Vectors;
import org.apache.spark.ml.regression.LinearRegression;
import org.apache.spark.ml.regression.LinearRegressionModel;
import org.apache.spark.ml.regression.LinearRegressionTrainingSummary;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * {@code fit-scaling}: fits {@code metric = intercept + slope * ln(synthetic_tokens)} over a sweep
 * of scored runs with Spark MLlib {@link LinearRegression} (normal-equation solver, no
 * regularisation, so the training summary has the coefficients' standard errors), and writes the
 * fit with where the line reaches a baseline setting's score to {@code scaling_fits}.
 *
 * <p>A separate job rather than a mode of {@code score}: it reads {@code scores} (subset {@code
 * all}), not predictions, so a sweep is refitted, or fitted against another baseline, without
 * regrading, and runs scored at different times join the same fit.
 */
public final class FitScalingJob {
  public static final String NAME = "fit-scaling";
  private static final StructType POINT =
      new StructType()
          .add("run_id", DataTypes.StringType, false)
          .add("tokens", DataTypes.LongType, false)
          .add("value", DataTypes.DoubleType, false);

  private final JobRun run;
  private final ScoreConfig options;
  private final String setting;
  private final String baselineSetting;
  private final String metric;

  public FitScalingJob(JobRun run) {
    this.run = run;
    this.options = run.config().section(ScoreConfig.class);
    // As the scores table spells them.
    this.setting = options.scalingSetting().id();
    this.baselineSetting =
        options.scalingBaselineSetting() == null ? null : options.scalingBaselineSetting().id();
    this.metric = options.scalingMetric().id();
  }

  /** The fit, as the scaling_fits row holds it. */
  public record Fit(double intercept, double slope, Double slopeSe, double r2) {}

  /** The x-axis of a fit over runs that predate the unique and seen counts. */
  public static final String WRITTEN = "written";

  /** The scores columns a sweep reads; those absent from an older scores table read as null. */
  private static final List<String> SWEEP_COLUMNS =
      List.of(
          "run_id",
          "benchmark",
          "synthetic_tokens",
          "unique_synthetic_tokens",
          "seen_synthetic_tokens",
          "count_tokenizer",
          "generator",
          "value");

  /**
   * One generator's runs of the sweep and the count its x-axis uses.
   *
   * @param tokenCount unique, seen, or {@link #WRITTEN} when a run lacks the configured count
   * @param countTokenizer the tokenizer of unique and seen; null for written
   * @param points (run_id, tokens, value), by tokens
   */
  private record Curve(
      String generator, String tokenCount, String countTokenizer, List<Row> points) {}

  public RunCounts run() {
    Warehouse warehouse = run.warehouse();
    if (!warehouse.exists("scores")) {
      throw new ConfigException(
          List.of("scores: no such table in " + warehouse.root() + ", expected score runs first"));
    }
    Dataset<Row> all =
        withColumns(warehouse.read("scores"))
            .filter(
                col("subset").equalTo(options.scalingSubset()).and(col("metric").equalTo(metric)));
    String countColumn = options.scalingTokens().id() + "_synthetic_tokens";
    Dataset<Row> sweep = all.filter(col("setting").equalTo(setting));
    if (!options.scalingRuns().isEmpty()) {
      sweep = sweep.filter(col("run_id").isin(options.scalingRuns().toArray()));
    } else {
      // A run with either count; a curve falls back to synthetic_tokens when one lacks its count.
      sweep = sweep.filter(col(countColumn).gt(0).or(col("synthetic_tokens").gt(0)));
    }
    if (options.scalingBenchmark() != null) {
      sweep = sweep.filter(col("benchmark").equalTo(options.scalingBenchmark()));
    }
    List<Row> found =
        sweep
            .select(
                SWEEP_COLUMNS.stream().map(c -> col(c)).toArray(org.apache.spark.sql.Column[]::new))
            .orderBy("generator", "run_id")
            .collectAsList();
    String benchmark = benchmark(found);
    List<String> problems = new ArrayList<>();
    for (String id : options.scalingRuns()) {
      if (found.stream().noneMatch(r -> r.getString(0).equals(id))) {
        problems.add(
            "score.scaling_runs: run "
                + id
                + " has no "
                + metric
                + " score of setting "
                + setting
                + (benchmark == null ? "" : " on " + benchmark)
                + ", expected a scored run");
      }
    }
    Map<String, List<Row>> byGenerator = new LinkedHashMap<>();
    for (Row r : found) {
      byGenerator.computeIfAbsent(r.getString(6), g -> new ArrayList<>()).add(r);
    }
    var out = run.out();
    List<Curve> curves = new ArrayList<>();
    List<String> skipped = new ArrayList<>();
    for (Map.Entry<String, List<Row>> group : byGenerator.entrySet()) {
      Curve curve = curve(group.getKey(), group.getValue(), problems, out);
      if (curve == null) {
        continue;
      }
      long distinct = curve.points().stream().map(p -> p.getLong(1)).distinct().count();
      if (distinct < 2) {
        skipped.add(
            String.format(
                Locale.ROOT,
                "%s: %d run(s) at %d distinct %s token count(s)",
                generatorLabel(curve.generator()),
                curve.points().size(),
                distinct,
                curve.tokenCount()));
      } else {
        curves.add(curve);
      }
    }
    if (curves.isEmpty() && problems.isEmpty()) {
      problems.add(
          "score.scaling_runs: got "
              + found.size()
              + " scored run(s) of setting "
              + setting
              + " with no generator at 2 or more distinct synthetic token counts"
              + (skipped.isEmpty() ? "" : " (" + String.join("; ", skipped) + ")")
              + ", expected runs at 2 or more token counts of one generator");
    }
    if (!problems.isEmpty()) {
      throw new ConfigException(problems);
    }
    skipped.forEach(s -> out.println("fit-scaling: not fitted, too few token counts: " + s));
    Double baseline = baseline(all, benchmark);
    Contract contract = Contracts.load("scaling_fits");
    List<Row> rows = new ArrayList<>();
    long points = 0;
    for (Curve c : curves) {
      Fit fit = fit(run.spark(), c.points());
      Double crossover = new ScalingCurve(fit.intercept(), fit.slope()).crossover(baseline);
      List<String> runIds = c.points().stream().map(p -> p.getString(0)).sorted().toList();
      String fitId =
          Keys.shortHash(
              benchmark,
              setting,
              metric,
              options.scalingSubset(),
              String.join(",", runIds),
              baselineSetting,
              options.scalingBaselineRun(),
              c.generator(),
              c.tokenCount());
      rows.add(
          RowFactory.create(
              fitId,
              benchmark,
              setting,
              metric,
              options.scalingSubset(),
              c.generator(),
              options.scalingLabel(),
              c.tokenCount(),
              c.countTokenizer(),
              c.points().size(),
              fit.intercept(),
              fit.slope(),
              fit.slopeSe(),
              fit.r2(),
              baseline == null ? null : baselineSetting,
              baseline,
              crossover,
              SparkRows.seq(c.points()),
              run.runId()));
      points += c.points().size();
      printFit(out, benchmark, c, fit, baseline, crossover, fitId);
    }
    WriteResult write =
        run.warehouse().upsert(contract, run.spark().createDataFrame(rows, contract.schema()));
    out.println("  " + write);
    out.flush();
    Map<String, Long> details = new LinkedHashMap<>();
    details.put("fits", (long) rows.size());
    details.put("points", points);
    details.put("scaling_fits.inserted", write.inserted());
    details.put("scaling_fits.updated", write.updated());
    return new RunCounts(found.size(), points, 0, details);
  }

  /**
   * One generator's points on the configured count, or on {@code synthetic_tokens} ({@link
   * #WRITTEN}) when a run lacks it; null (with problems) when a run has no usable count or the runs
   * were counted in different tokenizers.
   */
  private Curve curve(String generator, List<Row> runs, List<String> problems, PrintWriter out) {
    int index = SWEEP_COLUMNS.indexOf(options.scalingTokens().id() + "_synthetic_tokens");
    boolean counted = runs.stream().allMatch(r -> !r.isNullAt(index));
    List<String> tokenizers =
        runs.stream().map(r -> r.getString(5)).distinct().sorted().map(String::valueOf).toList();
    if (counted && tokenizers.size() > 1) {
      problems.add(
          "score.scaling_runs: the runs of "
              + generatorLabel(generator)
              + " count synthetic tokens in different tokenizers "
              + tokenizers
              + ", expected one (rebuild their shards with the same shards.count_tokenizer), or"
              + " runs of one tokenizer");
      return null;
    }
    if (!counted) {
      List<String> without =
          runs.stream().filter(r -> r.isNullAt(index)).map(r -> r.getString(0)).toList();
      out.println(
          "fit-scaling: "
              + generatorLabel(generator)
              + ": run(s) "
              + without
              + " have no "
              + options.scalingTokens()
              + " synthetic token count (their models were trained before it was recorded); this"
              + " fit counts synthetic_tokens written to the shards instead (shard tokenizer,"
              + " repetitions and EOS included)");
    }
    int tokens = counted ? index : SWEEP_COLUMNS.indexOf("synthetic_tokens");
    List<Row> points = new ArrayList<>();
    for (Row r : runs) {
      if (r.isNullAt(tokens) || r.getLong(tokens) <= 0) {
        problems.add(
            "score.scaling_runs: run "
                + r.getString(0)
                + " has "
                + SWEEP_COLUMNS.get(tokens)
                + " "
                + (r.isNullAt(tokens) ? "null" : r.get(tokens))
                + ", expected a positive token count (train_info.json synthetic_token_counts, or"
                + " synthetic_tokens)");
      } else {
        points.add(RowFactory.create(r.getString(0), r.getLong(tokens), r.getDouble(7)));
      }
    }
    points.sort(
        java.util.Comparator.comparingLong((Row p) -> p.getLong(1))
            .thenComparing(p -> p.getString(0)));
    return new Curve(
        generator,
        counted ? options.scalingTokens().id() : WRITTEN,
        counted ? runs.get(0).getString(5) : null,
        points);
  }

  private void printFit(
      PrintWriter out,
      String benchmark,
      Curve c,
      Fit fit,
      Double baseline,
      Double crossover,
      String fitId) {
    out.printf(
        Locale.ROOT,
        "fit-scaling: %s %s %s%s, %s%s, over %d run(s): %s = %.4f + %.4f ln(%s), slope SE %s,"
            + " R^2 %.4f%n",
        benchmark,
        setting,
        metric,
        ScoreJob.ALL.equals(options.scalingSubset())
            ? ""
            : " (subset " + options.scalingSubset() + ")",
        generatorLabel(c.generator()),
        options.scalingLabel() == null ? "" : " [" + options.scalingLabel() + "]",
        c.points().size(),
        metric,
        fit.intercept(),
        fit.slope(),
        axisName(c.tokenCount(), c.countTokenizer()),
        fit.slopeSe() == null
            ? "undefined (2 points)"
            : String.format(Locale.ROOT, "%.4f", fit.slopeSe()),
        fit.r2());
    if (baseline == null) {
      out.println(
          "  no baseline"
              + (baselineSetting == null
                  ? ""
                  : ": no " + baselineSetting + " score on " + benchmark));
    } else {
      out.printf(
          Locale.ROOT,
          "  baseline %s %.4f: %s%n",
          baselineSetting,
          baseline,
          crossover == null
              ? "the line does not climb to it"
              : String.format(Locale.ROOT, "crossed at %.4g tokens", crossover));
    }
    out.println("  fit_id " + fitId);
  }

  /**
   * What a fit's x-axis counts, in words: {@code unique synthetic tokens (tokenizer X)}, {@code
   * seen ...}, or the written fallback. The report labels its axis with this.
   */
  public static String axisName(String tokenCount, String countTokenizer) {
    if (tokenCount == null || WRITTEN.equals(tokenCount)) {
      return "synthetic tokens written to the shards (shard tokenizer, with repetitions)";
    }
    return tokenCount
        + " synthetic tokens"
        + (countTokenizer == null ? "" : " (tokenizer " + countTokenizer + ")");
  }

  private static String generatorLabel(String generator) {
    return generator == null ? "unknown generator" : "generator " + generator;
  }

  /** Scores as this job reads them: columns an older scores table lacks read as null. */
  private static Dataset<Row> withColumns(Dataset<Row> scores) {
    List<String> have = List.of(scores.columns());
    for (String column :
        List.of(
            "unique_synthetic_tokens", "seen_synthetic_tokens", "count_tokenizer", "generator")) {
      if (!have.contains(column)) {
        scores =
            scores.withColumn(
                column,
                org.apache
                    .spark
                    .sql
                    .functions
                    .lit(null)
                    .cast(column.endsWith("tokens") ? "bigint" : "string"));
      }
    }
    return scores;
  }

  /**
   * Least squares of value on ln(tokens) with MLlib's normal-equation solver; the slope's standard
   * error is null where it is undefined (two points leave no degree of freedom).
   */
  public static Fit fit(SparkSession spark, List<Row> points) {
    StructType schema =
        new StructType()
            .add("label", DataTypes.DoubleType, false)
            .add("features", SQLDataTypes.VectorType(), false);
    List<Row> rows =
        points.stream()
            .map(p -> RowFactory.create(p.getDouble(2), Vectors.dense(Math.log(p.getLong(1)))))
            .toList();
    Dataset<Row> data = spark.createDataFrame(rows, schema);
    LinearRegressionModel model =
        new LinearRegression()
            .setSolver("normal")
            .setRegParam(0.0)
            .setFitIntercept(true)
            .setStandardization(false)
            .fit(data);
    LinearRegressionTrainingSummary summary = model.summary();
    Double se = null;
    if (points.size() > 2) {
      try {
        // Coefficients first, the intercept last.
        double value = summary.coefficientStandardErrors()[0];
        se = Double.isFinite(value) ? value : null;
      } catch (UnsupportedOperationException e) {
        se = null;
      }
    }
    return new Fit(model.intercept(), model.coefficients().apply(0), se, summary.r2());
  }

  /** The sweep's benchmark: score.scaling_benchmark, or the only one its runs share. */
  private String benchmark(List<Row> found) {
    if (options.scalingBenchmark() != null) {
      return options.scalingBenchmark();
    }
    List<String> benchmarks = found.stream().map(r -> r.getString(1)).distinct().sorted().toList();
    if (benchmarks.size() > 1) {
      throw new ConfigException(
          List.of(
              "score.scaling_benchmark: got null, but the sweep's runs span "
                  + benchmarks
                  + ", expected one of them"));
    }
    return benchmarks.isEmpty() ? null : benchmarks.get(0);
  }

  /** The baseline setting's score on the benchmark: score.scaling_baseline_run, or its only run. */
  private Double baseline(Dataset<Row> all, String benchmark) {
    String setting = baselineSetting;
    if (setting == null) {
      return null;
    }
    Dataset<Row> candidates =
        all.filter(col("benchmark").equalTo(benchmark).and(col("setting").equalTo(setting)));
    if (options.scalingBaselineRun() != null) {
      candidates = candidates.filter(col("run_id").equalTo(options.scalingBaselineRun()));
    }
    List<Row> rows = candidates.select("run_id", "value").orderBy("run_id").collectAsList();
    if (options.scalingBaselineRun() != null && rows.isEmpty()) {
      throw new ConfigException(
          List.of(
              "score.scaling_baseline_run: run "
                  + options.scalingBaselineRun()
                  + " has no "
                  + metric
                  + " score of setting "
                  + setting
                  + " on "
                  + benchmark
                  + ", expected a scored run"));
    }
    if (rows.size() > 1) {
      throw new ConfigException(
          List.of(
              "score.scaling_baseline_run: got null, but "
                  + setting
                  + " has "
                  + rows.size()
                  + " scored runs on "
                  + benchmark
                  + " ("
                  + rows.stream().map(r -> r.getString(0)).toList()
                  + "), expected one of them"));
    }
    return rows.isEmpty() ? null : rows.get(0).getDouble(1);
  }
}
