// Databricks notebook source
// MAGIC %md
// MAGIC # Synthetic data: what was generated, and what the shard build dropped
// MAGIC Samples of each kind of synthetic document and of the QA pairs, then the dedup and decontamination
// MAGIC logs of the shard builds. Run `bin/infuse demo` first.
// MAGIC Elsewhere: `spark-shell --driver-java-options -Dinfuse.warehouse=./warehouse -i notebooks/synthetic_data.scala`.

// COMMAND ----------

// The warehouse to read: the demo's by default; on Databricks, your dbfs:/ or /Volumes/ path.
val warehouse = sys.props.getOrElse("infuse.warehouse", "warehouse")
def table(name: String) = spark.read.format("delta").load(s"$warehouse/$name")

import org.apache.spark.sql.expressions.Window
import org.apache.spark.sql.functions._

// COMMAND ----------

// Synthetic documents per kind and variant, in tokens, with the generator and template that made them.
val docs = table("synthetic_docs")
docs.groupBy("kind", "variant", "generator", "template_id", "template_version")
  .agg(count(lit(1)).as("documents"), sum("n_tokens").as("tokens"), round(avg("n_tokens")).as("avg_tokens"))
  .orderBy("kind", "variant")
  .show(50, false)
require(docs.count() > 0, s"$warehouse/synthetic_docs is empty: run gen-docs first")

// COMMAND ----------

// Two samples of each kind, with the start of their text (Focal Rewriting lists the questions it was conditioned on).
docs.withColumn("i", row_number().over(Window.partitionBy("kind").orderBy("sdoc_id")))
  .filter(col("i") <= 2)
  .select(col("kind"), col("variant"), col("doc_id"), col("conditioning_ids"), col("n_tokens"),
    substring(col("text"), 1, 160).as("text_start"))
  .orderBy("kind", "i")
  .show(50, false)

// COMMAND ----------

// Synthetic QA pairs: how many per source document, and a few of them.
val qa = table("synthetic_qa")
qa.groupBy("doc_id", "generator", "template_version").agg(count(lit(1)).as("pairs"))
  .orderBy(desc("pairs")).show(10, false)
qa.select(substring(col("question"), 1, 90).as("question"), substring(col("answer"), 1, 90).as("answer"))
  .orderBy("qa_id").show(5, false)

// COMMAND ----------

// The dedup log: rows each shard build dropped as exact or near duplicates, per source and reason.
val drops = table("shard_dedup_drops")
drops.groupBy("output", "source", "reason")
  .agg(count(lit(1)).as("dropped"), round(min("similarity"), 3).as("min_similarity"))
  .orderBy("output", "source", "reason")
  .show(50, false)
drops.select("output", "row_key", "kept_row_key", "reason", "similarity").orderBy("output", "row_key").show(5, false)

// COMMAND ----------

// The decontamination log: n-grams shared with a benchmark question, and what the build did about them.
val hits = table("decontamination_hits")
hits.groupBy("output", "source", "action")
  .agg(count(lit(1)).as("hits"), countDistinct("question_id").as("questions"))
  .orderBy("output", "source", "action")
  .show(50, false)
hits.select("output", "row_key", "question_id", "ngram", "action").orderBy("output", "row_key").show(5, false)
