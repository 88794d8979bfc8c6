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
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * The texts a mixture draws from, one row per source row: {@code source} (a {@link
 * MixtureSpec#SOURCES} name), {@code row_id} (unique within its source), {@code doc_id} (the source
 * document, null for replay), {@code prompt} (the context part of a QA pair, null otherwise),
 * {@code completion} (the rest), {@code text} (the whole training text, prompt then completion) and
 * {@code generator} (the {@code <backend>:<model>} that wrote a synthetic row; null for documents
 * and replay). QA pairs read as {@link QaTemplate}; synthetic documents are split by kind.
 */
public final class ShardSources {
  private ShardSources() {}

  /** The warehouse tables training text comes from. */
  public static final List<String> TABLES = List.of("synthetic_qa", "documents", "synthetic_docs");

  /**
   * Every source of the warehouse, optionally restricted to one corpus, plus the replay corpus when
   * {@code replay} names one.
   *
   * @param replay null, the name of a warehouse table, or a Parquet or JSON path; it needs a {@code
   *     text} column and may have an {@code id} column (else the text's hash is the row id)
   */
  public static Dataset<Row> read(
      SparkSession spark, Warehouse warehouse, String corpus, String replay) {
    List<Dataset<Row>> parts = new ArrayList<>();
    for (String table : TABLES) {
      if (warehouse.exists(table)) {
        parts.add(table(warehouse, table));
      }
    }
    Dataset<Row> all =
        parts.stream()
            .reduce(Dataset::unionByName)
            .orElseThrow(
                () ->
                    new ConfigException(
                        List.of(
                            "warehouse "
                                + warehouse.root()
                                + ": no documents, synthetic_qa or"
                                + " synthetic_docs table, expected at least one source to build shards from")));
    all = inCorpus(all, corpus);
    if (replay != null) {
      all = all.unionByName(replay(spark, warehouse, replay));
    }
    return all;
  }

  /** The rows of one of {@link #TABLES}, in this class's columns. */
  public static Dataset<Row> table(Warehouse warehouse, String table) {
    Dataset<Row> rows = warehouse.read(table);
    Column noPrompt = lit(null).cast("string");
    return switch (table) {
      case "synthetic_qa" ->
          withText(
              rows.select(
                  lit(MixtureSpec.QA).as("source"),
                  col("qa_id").as("row_id"),
                  col("doc_id"),
                  concat(
                          lit(QaTemplate.QUESTION_PREFIX),
                          col("question"),
                          lit(QaTemplate.ANSWER_PREFIX))
                      .as("prompt"),
                  col("answer").as("completion"),
                  col("generator")));
      case "documents" ->
          withText(
              rows.select(
                  lit("documents").as("source"),
                  col("doc_id").as("row_id"),
                  col("doc_id"),
                  noPrompt.as("prompt"),
                  col("text").as("completion"),
                  noPrompt.as("generator")));
      case "synthetic_docs" ->
          withText(
              rows.select(
                  concat(lit("synthetic_docs."), col("kind")).as("source"),
                  col("sdoc_id").as("row_id"),
                  col("doc_id"),
                  noPrompt.as("prompt"),
                  col("text").as("completion"),
                  col("generator")));
      default ->
          throw new IllegalArgumentException(
              "unknown source table " + table + ", expected one of " + String.join(", ", TABLES));
    };
  }

  /** Keeps the rows of one corpus; null keeps all. */
  public static Dataset<Row> inCorpus(Dataset<Row> rows, String corpus) {
    // Every doc_id is "<corpus>:<id>" (documents contract), so synthetic rows filter without a
    // join.
    return corpus == null ? rows : rows.filter(col("doc_id").startsWith(corpus + ":"));
  }

  private static Dataset<Row> withText(Dataset<Row> rows) {
    return rows.withColumn("text", concat(coalesce(col("prompt"), lit("")), col("completion")));
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
      throw new ConfigException(
          List.of(
              "replay: "
                  + replay
                  + " has columns "
                  + columns
                  + ", expected a text column"
                  + " (and optionally id)"));
    }
    return table.select(
        lit(MixtureSpec.REPLAY).as("source"),
        (columns.contains("id")
                ? coalesce(col("id").cast("string"), sha2(col("text"), 256))
                : sha2(col("text"), 256))
            .as("row_id"),
        lit(null).cast("string").as("doc_id"),
        lit(null).cast("string").as("prompt"),
        col("text").as("completion"),
        col("text"),
        lit(null).cast("string").as("generator"));
  }
}
