package dev.infuse.jobs.embed;

import static org.apache.spark.sql.functions.coalesce;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.concat;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.sha2;

import dev.infuse.jobs.chunk.ChunkJob;
import dev.infuse.jobs.config.ConfigException;
import dev.infuse.jobs.contract.Contract;
import dev.infuse.jobs.contract.Contracts;
import dev.infuse.jobs.io.Quarantine;
import dev.infuse.jobs.io.Warehouse;
import dev.infuse.jobs.io.WriteResult;
import dev.infuse.jobs.run.JobRun;
import dev.infuse.jobs.run.RunCounts;
import dev.infuse.udfs.embed.DjlSentenceEmbedder;
import dev.infuse.udfs.embed.EmbedderSpec;
import dev.infuse.udfs.embed.LongTextMode;
import dev.infuse.udfs.embed.TextEmbedder;
import dev.infuse.udfs.model.ModelSpec;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.storage.StorageLevel;

/**
 * {@code embed}: one sentence embedding per chunk of {@code chunks} (of its indexed text: metadata
 * prefix, then text), written to {@code chunk_embeddings} keyed by (chunk_id, model). A text longer
 * than the encoder's window is windowed or truncated as {@code embed.long_text} says, and counted
 * either way ({@code over_window}).
 *
 * <p>Only chunks the table lacks, or whose text changed since they were embedded (by text_sha256),
 * are embedded: a rerun embeds and commits nothing. Embeddings of chunks that are gone (re-chunked
 * documents) are deleted for this model. A chunk that cannot be embedded goes to quarantine.
 */
public final class EmbedJob {
  public static final String NAME = "embed";
  public static final String TABLE = "chunk_embeddings";
  private static final List<String> KEY = List.of("chunk_id", "model");

  private final JobRun run;
  private final EmbedderSpec spec;

  public EmbedJob(JobRun run) {
    this.run = run;
    this.spec = run.config().section(EmbedderSpec.class);
  }

  public RunCounts run() {
    SparkSession spark = run.spark();
    Warehouse warehouse = run.warehouse();
    Contract contract = Contracts.load(TABLE);
    String modelId = resolveModelId(spec);
    LongTextMode longText = LongTextMode.of(spec.longText());
    // What is embedded is the chunk's indexed text: its metadata prefix, if any, then its text.
    Dataset<Row> chunks =
        warehouse
            .read("chunks")
            .select(col("chunk_id"), col("doc_id"), ChunkJob.indexedText().as("text"))
            .withColumn("text_sha256", sha2(col("text"), 256));
    Dataset<Row> todo =
        warehouse.exists(TABLE)
            ? chunks.join(
                warehouse
                    .read(TABLE)
                    .filter(col("model").equalTo(modelId))
                    .select("chunk_id", "text_sha256"),
                scalaSeq(List.of("chunk_id", "text_sha256")),
                "left_anti")
            : chunks;
    // A small Delta table reads as one partition; the model is the cost, so use every core.
    int parallelism = spark.sparkContext().defaultParallelism();
    if (todo.rdd().getNumPartitions() < parallelism) {
      todo = todo.repartition(parallelism);
    }
    Dataset<Row> rows =
        transform(spark, todo, spec, modelId).persist(StorageLevel.MEMORY_AND_DISK());
    try {
      Dataset<Row> embeddings =
          rows.filter(col("kind").equalTo(EmbedRows.EMBEDDING))
              .select(contract.columnNames().stream().map(c -> col(c)).toArray(Column[]::new));
      Dataset<Row> failures =
          Quarantine.deadLetters(
              rows.filter(col("kind").equalTo(EmbedRows.FAILURE)),
              lit("chunks"),
              concat(lit("chunk_id="), col("chunk_id")),
              col("text"),
              col("reason"));

      long input = chunks.count();
      // One pass over the persisted rows for all counts.
      Map<String, Long> byKind = new java.util.HashMap<>();
      long overWindow = 0;
      for (Row kind :
          rows.groupBy(col("kind"), coalesce(col("windows"), lit(1)).gt(1).as("over"))
              .count()
              .collectAsList()) {
        byKind.merge(kind.getString(0), kind.getLong(2), Long::sum);
        if (kind.getBoolean(1)) {
          overWindow += kind.getLong(2);
        }
      }
      long embedded = byKind.getOrDefault(EmbedRows.EMBEDDING, 0L);
      long failed = byKind.getOrDefault(EmbedRows.FAILURE, 0L);
      long upToDate = input - embedded - failed;
      // Fresh vectors only (new chunks or changed text), so the merge skips comparing every stored
      // vector.
      WriteResult write = warehouse.upsertFresh(contract, embeddings);
      Dataset<Row> gone =
          warehouse
              .read(TABLE)
              .filter(col("model").equalTo(modelId))
              .select("chunk_id", "model")
              .join(chunks.select("chunk_id"), scalaSeq(List.of("chunk_id")), "left_anti");
      WriteResult delete =
          warehouse.deleteKeys(
              contract, gone.select(KEY.stream().map(c -> col(c)).toArray(Column[]::new)));
      WriteResult quarantineWrite = run.quarantine(failures, failed);

      Map<String, Long> details = new LinkedHashMap<>();
      details.put("chunks", input);
      details.put("embedded", embedded);
      details.put("up_to_date", upToDate);
      // Texts of this run longer than the encoder's window: windowed, or (warn) truncated.
      details.put("over_window", overWindow);
      details.put(longText == LongTextMode.WARN ? "truncated" : "windowed", overWindow);
      details.put(TABLE + ".inserted", write.inserted());
      details.put(TABLE + ".updated", write.updated());
      details.put(TABLE + ".deleted", delete.deleted());
      details.put("quarantine.inserted", quarantineWrite.inserted());
      RunCounts counts = new RunCounts(input, embedded + upToDate, failed, details);

      var out = run.out();
      out.printf(
          Locale.ROOT,
          "embed: %d chunk(s) with %s (device %s, batch %d, threads %d)%n",
          input,
          modelId,
          spec.device(),
          spec.batchSize(),
          spec.threads());
      out.printf(
          Locale.ROOT,
          "  %d embedded, %d already up to date, %d quarantined%n",
          embedded,
          upToDate,
          failed);
      if (overWindow > 0 && longText == LongTextMode.WARN) {
        out.printf(
            Locale.ROOT,
            "  WARNING: %d of the %d embedded text(s) are longer than the model's %d-token window"
                + " and were truncated to it (embed.long_text: warn); window embeds them whole%n",
            overWindow,
            embedded,
            DjlSentenceEmbedder.MAX_TOKENS);
      } else if (overWindow > 0) {
        out.printf(
            Locale.ROOT,
            "  %d of the %d embedded text(s) are longer than the model's %d-token window: embedded"
                + " as overlapping windows and mean-pooled (embed.long_text: window)%n",
            overWindow,
            embedded,
            DjlSentenceEmbedder.MAX_TOKENS);
      }
      out.println("  " + write);
      if (delete.committed()) {
        out.println(
            "  "
                + TABLE
                + ": "
                + delete.deleted()
                + " embedding(s) of chunks that are gone deleted");
      }
      out.flush();
      return counts;
    } finally {
      rows.unpersist();
    }
  }

  /**
   * The pure part: chunks {@code (chunk_id, doc_id, text, text_sha256)} to embedding and failure
   * rows ({@link EmbedRows#SCHEMA}), one task per partition of {@code chunks}.
   */
  public static Dataset<Row> transform(
      SparkSession spark, Dataset<Row> chunks, EmbedderSpec spec, String modelId) {
    return transform(spark, chunks, spec, modelId, spec.batchSize());
  }

  /**
   * {@link #transform(SparkSession, Dataset, EmbedderSpec, String)} with any embedder: tests pass a
   * fake.
   */
  static Dataset<Row> transform(
      SparkSession spark,
      Dataset<Row> chunks,
      ModelSpec<TextEmbedder> spec,
      String modelId,
      int batchSize) {
    JavaRDD<Row> rows =
        chunks
            .select("chunk_id", "doc_id", "text", "text_sha256")
            .javaRDD()
            .mapPartitions(new EmbedRows(spec, modelId, batchSize));
    return spark.createDataFrame(rows, EmbedRows.SCHEMA);
  }

  /**
   * The id stored beside the spec's vectors (the model's, marked with {@code embed.long_text}),
   * checked on the driver so a bad path is a config error before any task runs.
   */
  public static String resolveModelId(EmbedderSpec spec) {
    try {
      return spec.vectorsModelId();
    } catch (IllegalArgumentException e) {
      throw new ConfigException(List.of("embed." + e.getMessage().replaceFirst("^embed ", "")));
    }
  }

  private static scala.collection.Seq<String> scalaSeq(List<String> names) {
    return scala.collection.JavaConverters.asScalaBuffer(names).toSeq();
  }
}
