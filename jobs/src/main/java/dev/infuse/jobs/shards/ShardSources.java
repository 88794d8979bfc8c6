package dev.infuse.jobs.shards;

import static org.apache.spark.sql.functions.coalesce;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.concat;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.sha2;

import dev.infuse.jobs.config.ConfigException;
import dev.infuse.jobs.io.Warehouse;
import dev.infuse.udfs.mix.MixtureSpec;
import dev.infuse.udfs.mix.QaTemplate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * The texts a mixture draws from, one row per source row: {@code source} (a {@link MixtureSpec#SOURCES}
 * name), {@code row_id} (unique within its source), {@code doc_id} (the source document, null for
 * replay), {@code prompt} (the context part of a QA pair, null otherwise) and {@code text} (the whole
 * training text). QA pairs read as {@link QaTemplate}; synthetic documents are split by kind.
 */
public final class ShardSources {
  private ShardSources() {}

  /**
   * Every source of the warehouse, optionally restricted to one corpus, plus the replay corpus when
   * {@code replay} names one.
   *
   * @param replay null, the name of a warehouse table, or a Parquet or JSON path; it needs a
   *     {@code text} column and may have an {@code id} column (else the text's hash is the row id)
   */
  public static Dataset<Row> read(SparkSession spark, Warehouse warehouse, String corpus, String replay) {
    List<Dataset<Row>> parts = new ArrayList<>();
    if (warehouse.exists("synthetic_qa")) {
      parts.add(warehouse.read("synthetic_qa").select(lit(MixtureSpec.QA).as("source"), col("qa_id").as("row_id"),
          col("doc_id"), concat(lit(QaTemplate.QUESTION_PREFIX), col("question"), lit(QaTemplate.ANSWER_PREFIX)).as("prompt"),
          concat(lit(QaTemplate.QUESTION_PREFIX), col("question"), lit(QaTemplate.ANSWER_PREFIX), col("answer")).as("text")));
    }
    if (warehouse.exists("documents")) {
      parts.add(warehouse.read("documents").select(lit("documents").as("source"), col("doc_id").as("row_id"), col("doc_id"),
          lit(null).cast("string").as("prompt"), col("text")));
    }
    if (warehouse.exists("synthetic_docs")) {
      parts.add(warehouse.read("synthetic_docs").select(concat(lit("synthetic_docs."), col("kind")).as("source"),
          col("sdoc_id").as("row_id"), col("doc_id"), lit(null).cast("string").as("prompt"), col("text")));
    }
    Dataset<Row> all = parts.stream().reduce(Dataset::unionByName)
        .orElseThrow(() -> new ConfigException(List.of("warehouse " + warehouse.root() + ": no documents, synthetic_qa or"
            + " synthetic_docs table, expected at least one source to build shards from")));
    if (corpus != null) {
      // Every doc_id is "<corpus>:<id>" (documents contract), so synthetic rows filter without a join.
      all = all.filter(col("doc_id").startsWith(corpus + ":"));
    }
    if (replay != null) {
      all = all.unionByName(replay(spark, warehouse, replay));
    }
    return all;
  }

  private static Dataset<Row> replay(SparkSession spark, Warehouse warehouse, String replay) {
    Dataset<Row> table;
    if (warehouse.exists(replay)) {
      table = warehouse.read(replay);
    } else if (replay.endsWith(".json") || replay.endsWith(".jsonl")) {
      table = spark.read().json(replay);
    } else {
      table = spark.read().parquet(replay);
    }
    List<String> columns = Arrays.asList(table.columns());
    if (!columns.contains("text")) {
      throw new ConfigException(List.of("replay: " + replay + " has columns " + columns + ", expected a text column"
          + " (and optionally id)"));
    }
    return table.select(lit(MixtureSpec.REPLAY).as("source"),
        (columns.contains("id") ? coalesce(col("id").cast("string"), sha2(col("text"), 256)) : sha2(col("text"), 256))
            .as("row_id"),
        lit(null).cast("string").as("doc_id"), lit(null).cast("string").as("prompt"), col("text"));
  }
}
