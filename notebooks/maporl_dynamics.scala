// Databricks notebook source
// MAGIC %md
// MAGIC # MAPoRL: what happens turn by turn
// MAGIC Accuracy per agent and turn, the majority's accuracy, and how answers move between turns: corrections
// MAGIC (wrong to right) against regressions (right to wrong), which MAPoRL's rewards pay for and against.
// MAGIC Run `bin/infuse demo` first. Elsewhere: `spark-shell --driver-java-options -Dinfuse.warehouse=./warehouse -i notebooks/maporl_dynamics.scala`.

// COMMAND ----------

// The warehouse to read: the demo's by default; on Databricks, your dbfs:/ or /Volumes/ path.
val warehouse = sys.props.getOrElse("infuse.warehouse", "warehouse")
def table(name: String) = spark.read.format("delta").load(s"$warehouse/$name")

import org.apache.spark.sql.expressions.Window
import org.apache.spark.sql.functions._

// COMMAND ----------

// The latest discuss run's rollouts: one row per question, agent and turn.
val allRollouts = table("rollouts")
val latestDiscussRun = allRollouts.agg(max("run_id")).head.getString(0)
require(latestDiscussRun != null, s"no rollouts in $warehouse: run infuse discuss first")
val rollouts = allRollouts.filter(col("run_id") === latestDiscussRun)
println(s"discuss run $latestDiscussRun: ${rollouts.select("question_id").distinct.count} question(s)")

// COMMAND ----------

// Accuracy and parse rate per agent and turn.
rollouts.groupBy("agent_id", "model", "turn")
  .agg(count(lit(1)).as("answers"),
    round(avg(when(col("correct"), 1.0).otherwise(0.0)), 3).as("accuracy"),
    round(avg(when(col("parse_status") === "ok", 1.0).otherwise(0.0)), 3).as("parsed"),
    round(avg("verifier_score"), 3).as("mean_verifier_score"))
  .orderBy("turn", "agent_id")
  .show(50, false)

// COMMAND ----------

// The per-turn metrics score wrote for this run (majority accuracy among them).
table("discussion_scores")
  .filter(col("discuss_run_id") === latestDiscussRun)
  .groupBy("metric", "agent_id").pivot("turn").agg(round(first("value"), 3))
  .orderBy("metric", "agent_id")
  .show(50, false)

// COMMAND ----------

// How each agent's answer moved from the turn before: corrections, regressions, and answers kept.
val moves = rollouts
  .withColumn("was_correct",
    lag("correct", 1).over(Window.partitionBy("discussion_id", "iteration", "question_id", "agent_id").orderBy("turn")))
  .filter(col("turn") > 0)
  .withColumn("move",
    when(!col("was_correct") && col("correct"), "corrected")
      .when(col("was_correct") && !col("correct"), "regressed")
      .when(col("correct"), "kept right")
      .otherwise("kept wrong"))
val transitions = moves.groupBy("turn", "agent_id").pivot("move").count().na.fill(0).orderBy("turn", "agent_id")
transitions.show(50, false)
require(transitions.count() > 0, s"discuss run $latestDiscussRun has no turn after the first")
