// Databricks notebook source
// MAGIC %md
// MAGIC # Clinical behaviour: confusion matrices and the Hard subset
// MAGIC Which behaviour the assistant chose against the one the task was built for (reactive, proactive,
// MAGIC restraint), per category, then the macro-F1 scores and the tasks a panel of models failed.
// MAGIC Run `bin/infuse demo` first. Elsewhere: `spark-shell --driver-java-options -Dinfuse.warehouse=./warehouse -i notebooks/behavior.scala`.

// COMMAND ----------

// The warehouse to read: the demo's by default; on Databricks, your dbfs:/ or /Volumes/ path.
val warehouse = sys.props.getOrElse("infuse.warehouse", "warehouse")
def table(name: String) = spark.read.format("delta").load(s"$warehouse/$name")

import org.apache.spark.sql.functions._

// COMMAND ----------

// The latest behaviour run's predictions.
val allPredictions = table("behavior_predictions")
val latestRun = allPredictions.agg(max("run_id")).head.getString(0)
require(latestRun != null, s"no behaviour predictions in $warehouse: run infuse answer --mode behavior first")
val predictions = allPredictions.filter(col("run_id") === latestRun)
println(s"run $latestRun: ${predictions.count} task(s), model ${predictions.select("model").head.getString(0)}")

// COMMAND ----------

// Confusion matrix: gold behaviour (rows) against the chosen one (columns).
val behaviours = Seq("reactive", "proactive", "restraint")
val confusion = predictions.groupBy("gold_behavior").pivot("predicted_behavior", behaviours).count()
  .na.fill(0).orderBy("gold_behavior")
confusion.show(false)
require(confusion.count() > 0, s"run $latestRun has no predictions")

// COMMAND ----------

// The same per category: where restraint turns into false alarms, or a proactive flag is missed.
predictions.groupBy("category", "gold_behavior").pivot("predicted_behavior", behaviours).count()
  .na.fill(0).orderBy("category").show(50, false)

// COMMAND ----------

// Macro-F1 and MEDEC's metrics, per subset, from the score runs of this prediction run.
table("behavior_scores").filter(col("run_id") === latestRun)
  .select(col("subset"), col("metric"), round(col("value"), 3).as("value"), col("n"), col("classified_by"))
  .orderBy("subset", "metric")
  .show(100, false)

// COMMAND ----------

// The Hard subset: tasks most of the panel failed, per category and gold behaviour.
val hard = table("behavior_tasks_hard")
hard.groupBy("category", "gold_behavior")
  .agg(count(lit(1)).as("tasks"), round(avg("failures"), 2).as("mean_failures"))
  .orderBy("category")
  .show(50, false)
hard.select(col("task_id"), col("category"), col("failures"), col("panel"), col("rule")).orderBy("task_id").show(5, false)
