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

  public RunCounts run() {
    Warehouse warehouse = run.warehouse();
    if (!warehouse.exists("scores")) {
      throw new ConfigException(
          List.of("scores: no such table in " + warehouse.root() + ", expected score runs first"));
    }
    Dataset<Row> all =
        warehouse
            .read("scores")
            .filter(col("subset").equalTo(ScoreJob.ALL).and(col("metric").equalTo(metric)));
    Dataset<Row> sweep = all.filter(col("setting").equalTo(setting));
    if (!options.scalingRuns().isEmpty()) {
      sweep = sweep.filter(col("run_id").isin(options.scalingRuns().toArray()));
    } else {
      sweep = sweep.filter(col("synthetic_tokens").isNotNull().and(col("synthetic_tokens").gt(0)));
    }
    if (options.scalingBenchmark() != null) {
      sweep = sweep.filter(col("benchmark").equalTo(options.scalingBenchmark()));
    }
    List<Row> found =
        sweep
            .select("run_id", "benchmark", "synthetic_tokens", "value")
            .orderBy("synthetic_tokens", "run_id")
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
    List<Row> points = new ArrayList<>();
    for (Row r : found) {
      if (r.isNullAt(2) || r.getLong(2) <= 0) {
        problems.add(
            "score.scaling_runs: run "
                + r.getString(0)
                + " has synthetic_tokens "
                + (r.isNullAt(2) ? "null" : r.get(2))
                + ", expected a positive token count (train_info.json synthetic_tokens)");
      } else {
        points.add(RowFactory.create(r.getString(0), r.getLong(2), r.getDouble(3)));
      }
    }
    if (points.stream().map(p -> p.getLong(1)).distinct().count() < 2) {
      problems.add(
          "score.scaling_runs: got "
              + points.size()
              + " scored run(s) of setting "
              + setting
              + " with "
              + points.stream().map(p -> p.getLong(1)).distinct().count()
              + " distinct synthetic_tokens, expected runs at 2 or more token counts");
    }
    if (!problems.isEmpty()) {
      throw new ConfigException(problems);
    }
    Fit fit = fit(run.spark(), points);
    ScalingCurve curve = new ScalingCurve(fit.intercept(), fit.slope());
    Double baseline = baseline(all, benchmark);
    Double crossover = curve.crossover(baseline);
    List<String> runIds = points.stream().map(p -> p.getString(0)).sorted().toList();
    String fitId =
        Keys.shortHash(
            benchmark,
            setting,
            metric,
            ScoreJob.ALL,
            String.join(",", runIds),
            baselineSetting,
            options.scalingBaselineRun());
    Contract contract = Contracts.load("scaling_fits");
    Row row =
        RowFactory.create(
            fitId,
            benchmark,
            setting,
            metric,
            points.size(),
            fit.intercept(),
            fit.slope(),
            fit.slopeSe(),
            fit.r2(),
            baseline == null ? null : baselineSetting,
            baseline,
            crossover,
            SparkRows.seq(points),
            run.runId());
    WriteResult write =
        run.warehouse()
            .upsert(contract, run.spark().createDataFrame(List.of(row), contract.schema()));

    var out = run.out();
    out.printf(
        Locale.ROOT,
        "fit-scaling: %s %s %s over %d run(s): %s = %.4f + %.4f ln(tokens), slope SE %s, R^2 %.4f%n",
        benchmark,
        setting,
        metric,
        points.size(),
        metric,
        fit.intercept(),
        fit.slope(),
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
    out.println("  fit_id " + fitId + "; " + write);
    out.flush();
    Map<String, Long> details = new LinkedHashMap<>();
    details.put("points", (long) points.size());
    details.put("scaling_fits.inserted", write.inserted());
    details.put("scaling_fits.updated", write.updated());
    return new RunCounts(points.size(), points.size(), 0, details);
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
