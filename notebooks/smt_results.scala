// Databricks notebook source
// MAGIC %md
// MAGIC # Synthetic Mixed Training: results
// MAGIC Accuracy per setting and model with its bootstrap CI, the paired comparisons, and the scaling curve
// MAGIC (accuracy against ln synthetic tokens) of the latest `score` run. Run `bin/infuse demo` first.
// MAGIC Elsewhere: `spark-shell --driver-java-options -Dinfuse.warehouse=./warehouse -i notebooks/smt_results.scala`.

// COMMAND ----------

// The warehouse to read: the demo's by default; on Databricks, your dbfs:/ or /Volumes/ path.
val warehouse = sys.props.getOrElse("infuse.warehouse", "warehouse")
def table(name: String) = spark.read.format("delta").load(s"$warehouse/$name")

import org.apache.spark.sql.expressions.Window
import org.apache.spark.sql.functions._

// COMMAND ----------

// The latest score run: every later cell reads only its rows.
val scores = table("scores")
val latestScoreRun = scores.agg(max("score_run_id")).head.getString(0)
require(latestScoreRun != null, s"no score run in $warehouse/scores: run infuse evaluate or infuse score first")
println(s"score run $latestScoreRun")

// COMMAND ----------

// Accuracy per benchmark, setting and model, with its 95% bootstrap CI and the synthetic tokens behind it.
val accuracy = scores
  .filter(col("score_run_id") === latestScoreRun && col("metric") === "accuracy" && col("subset") === "all")
  .select(col("benchmark"), col("setting"), col("model"), col("n"),
    round(col("value"), 3).as("accuracy"), round(col("ci_low"), 3).as("ci_low"),
    round(col("ci_high"), 3).as("ci_high"), col("unique_synthetic_tokens"))
  .orderBy("benchmark", "setting", "unique_synthetic_tokens", "model")
accuracy.show(50, false)
require(accuracy.count() > 0, s"score run $latestScoreRun holds no accuracy")

// COMMAND ----------

// Paired comparisons on the same questions: diff = a - b; a CI that excludes 0 is a real difference.
table("score_comparisons")
  .filter(col("score_run_id") === latestScoreRun && col("metric") === "accuracy")
  .select(col("benchmark"), col("setting_a"), col("setting_b"), col("n"),
    round(col("diff"), 3).as("diff"), round(col("ci_low"), 3).as("ci_low"),
    round(col("ci_high"), 3).as("ci_high"), round(col("p_value"), 3).as("p_value"))
  .orderBy("benchmark", "setting_a", "setting_b")
  .show(50, false)

// COMMAND ----------

// The scaling fits, the latest of each benchmark, setting, metric, subset and curve label: accuracy = intercept + slope * ln(tokens),
// and where the line would cross the baseline. (Their score_run_id is the fit-scaling run's id.)
val fits = table("scaling_fits")
  .withColumn("latest", row_number().over(
    Window.partitionBy("benchmark", "setting", "metric", "subset", "label").orderBy(desc("score_run_id"))))
  .filter(col("latest") === 1)
fits.select(col("benchmark"), col("setting"), col("subset"), col("label"), col("metric"), col("token_count"), col("n_points"),
    round(col("intercept"), 4).as("intercept"), round(col("slope"), 4).as("slope"),
    round(col("r2"), 3).as("r2"), col("baseline_setting"), round(col("baseline_value"), 3).as("baseline"),
    col("crossover_tokens"))
  .show(20, false)

// COMMAND ----------

// The curve's points: one per model, on the token axis the fit used.
val points = fits
  .filter(col("metric") === "accuracy")
  .select(col("benchmark"), col("setting"), col("subset"), col("label"), col("intercept"), col("slope"),
    explode(col("points")).as("p"))
  .select(col("benchmark"), col("setting"), col("subset"), col("label"), col("p.tokens").as("tokens"),
    round(log(col("p.tokens")), 3).as("ln_tokens"), round(col("p.value"), 3).as("accuracy"),
    round(col("intercept") + col("slope") * log(col("p.tokens")), 3).as("fitted"), col("p.run_id"))
  .orderBy("benchmark", "setting", "subset", "label", "tokens")
points.show(50, false)
require(points.count() > 0, s"no scaling fit with points in $warehouse/scaling_fits: run infuse fit-scaling")
