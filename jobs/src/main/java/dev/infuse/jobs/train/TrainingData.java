package dev.infuse.jobs.train;

import static org.apache.spark.sql.functions.lit;

import dev.infuse.jobs.io.Warehouse;
import dev.infuse.jobs.shards.ShardSources;
import dev.infuse.jobs.shards.TrainingTextRows;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * The training texts of the configured tables as {@code (source, row_id, prompt, completion)}, and
 * their tokenization on the executors. Rows come from {@link ShardSources}: synthetic_qa pairs have
 * the question as the prompt, so an answer-only loss trains exactly the answers.
 */
final class TrainingData {
  private TrainingData() {}

  /**
   * The texts of {@code sources}, ordered by (source, row_id) so the data never depends on
   * partitioning.
   */
  static Dataset<Row> texts(Warehouse warehouse, TrainConfig options) {
    List<Dataset<Row>> parts = new ArrayList<>();
    for (String source : options.sources()) {
      if (!warehouse.exists(source)) {
        throw new IllegalStateException(
            "train.sources: table "
                + source
                + " does not exist in "
                + warehouse.root()
                + "; run the job that writes it first, or leave it out of train.sources");
      }
      // Sources are named by table here (synthetic_docs, not synthetic_docs.<kind>), as
      // train.sources names them.
      parts.add(ShardSources.table(warehouse, source).withColumn("source", lit(source)));
    }
    Dataset<Row> all =
        ShardSources.inCorpus(
            parts.stream().reduce(Dataset::unionByName).orElseThrow(), options.corpus());
    return all.select("source", "row_id", "prompt", "completion").orderBy("source", "row_id");
  }

  /**
   * Tokenizes {@code texts} on the executors: rows of {@link TrainingTextRows#SCHEMA}, in the same
   * order.
   */
  static Dataset<Row> tokenize(
      SparkSession spark, Dataset<Row> texts, byte[] tokenizerJson, boolean answerOnly) {
    var broadcast = new JavaSparkContext(spark.sparkContext()).broadcast(tokenizerJson);
    JavaRDD<Row> rows = texts.javaRDD().mapPartitions(new TrainingTextRows(broadcast, answerOnly));
    return spark.createDataFrame(rows, TrainingTextRows.SCHEMA);
  }
}
