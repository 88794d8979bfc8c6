package dev.infuse.jobs.train;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.concat;
import static org.apache.spark.sql.functions.lit;

import dev.infuse.jobs.config.InfuseConfig;
import dev.infuse.jobs.io.Warehouse;
import dev.infuse.udfs.mix.QaTemplate;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;

import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * The training texts of the configured tables as {@code (source, row_id, prompt, completion)}, and their
 * tokenization on the executors. synthetic_qa pairs read as {@link QaTemplate} says, with the question as
 * the prompt, so an answer-only loss trains exactly the answers.
 */
final class TrainingData {
  private TrainingData() {}

  /** The texts of {@code sources}, ordered by (source, row_id) so the data never depends on partitioning. */
  static Dataset<Row> texts(Warehouse warehouse, InfuseConfig.TrainConfig options) {
    List<Dataset<Row>> parts = new ArrayList<>();
    for (String source : options.sources()) {
      if (!warehouse.exists(source)) {
        throw new IllegalStateException("train.sources: table " + source + " does not exist in " + warehouse.root()
            + "; run the job that writes it first, or leave it out of train.sources");
      }
      Dataset<Row> table = warehouse.read(source);
      Dataset<Row> part = switch (source) {
        case "documents" -> table.select(lit(source).as("source"), col("doc_id").as("row_id"), col("doc_id"),
            lit(null).cast("string").as("prompt"), col("text").as("completion"));
        case "synthetic_docs" -> table.select(lit(source).as("source"), col("sdoc_id").as("row_id"), col("doc_id"),
            lit(null).cast("string").as("prompt"), col("text").as("completion"));
        case "synthetic_qa" -> table.select(lit(source).as("source"), col("qa_id").as("row_id"), col("doc_id"),
            concat(lit(QaTemplate.QUESTION_PREFIX), col("question"), lit(QaTemplate.ANSWER_PREFIX)).as("prompt"),
            col("answer").as("completion"));
        default -> throw new IllegalArgumentException("train.sources: unknown table " + source);
      };
      parts.add(part);
    }
    Dataset<Row> all = parts.stream().reduce(Dataset::unionByName).orElseThrow();
    if (options.corpus() != null) {
      // Every doc_id is "<corpus>:<id>" (documents contract), so synthetic rows filter without a join.
      all = all.filter(col("doc_id").startsWith(options.corpus() + ":"));
    }
    return all.select("source", "row_id", "prompt", "completion").orderBy("source", "row_id");
  }

  /** Tokenizes {@code texts} on the executors: rows of {@link TrainingTextRows#SCHEMA}, in the same order. */
  static Dataset<Row> tokenize(SparkSession spark, Dataset<Row> texts, byte[] tokenizerJson, boolean answerOnly) {
    var broadcast = new JavaSparkContext(spark.sparkContext()).broadcast(tokenizerJson);
    JavaRDD<Row> rows = texts.javaRDD().mapPartitions(new TrainingTextRows(broadcast, answerOnly));
    return spark.createDataFrame(rows, TrainingTextRows.SCHEMA);
  }
}
