package dev.infuse.jobs.chunk;

import static org.apache.spark.sql.functions.coalesce;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.collect_list;
import static org.apache.spark.sql.functions.concat;
import static org.apache.spark.sql.functions.concat_ws;
import static org.apache.spark.sql.functions.flatten;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.sha2;
import static org.apache.spark.sql.functions.size;
import static org.apache.spark.sql.functions.substring;
import static org.apache.spark.sql.functions.when;

import dev.infuse.jobs.contract.Contract;
import dev.infuse.jobs.contract.ContractEnforcer;
import dev.infuse.jobs.contract.Contracts;
import dev.infuse.jobs.io.Quarantine;
import dev.infuse.jobs.io.TokenizerFiles;
import dev.infuse.jobs.io.WriteResult;
import dev.infuse.jobs.run.JobRun;
import dev.infuse.jobs.run.RunCounts;
import dev.infuse.udfs.retrieve.ChunkText;
import dev.infuse.udfs.text.Tokenizers;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.storage.StorageLevel;

/**
 * {@code chunk}: cuts {@code documents} into {@code chunks} bounded in tokens (preferring paragraph
 * and sentence ends) or in characters (LangChain's recursive splitter, {@code chunk.unit: chars}),
 * with character offsets that map back into the document exactly, and each document's metadata
 * prefix ({@code chunk.prefix_template}) beside its chunks.
 *
 * <p>Re-chunking a document replaces all its chunks (a new size leaves no stale chunks behind), and
 * a rerun with the same settings commits nothing.
 */
public final class ChunkJob {
  public static final String NAME = "chunk";

  private final JobRun run;
  private final ChunkConfig options;
  private final RagConfig rag;

  public ChunkJob(JobRun run) {
    this.run = run;
    this.options = run.config().section(ChunkConfig.class);
    this.rag = run.config().section(RagConfig.class);
  }

  public RunCounts run() {
    SparkSession spark = run.spark();
    Dataset<Row> documents = run.warehouse().read("documents");
    if (options.corpus() != null) {
      documents = documents.filter(col("corpus").equalTo(options.corpus()));
    }
    Broadcast<byte[]> tokenizerJson =
        Tokenizers.DEFAULT_SPEC.equals(options.tokenizer())
            ? null
            : new JavaSparkContext(spark.sparkContext())
                .broadcast(TokenizerFiles.read(spark, options.tokenizer(), "chunk.tokenizer"));
    ChunkRows.Settings settings = ChunkRows.Settings.of(options);
    Dataset<Row> rows =
        inRecipe(transform(spark, documents, settings, tokenizerJson), rag)
            .persist(StorageLevel.MEMORY_AND_DISK());
    try {
      Contract contract = Contracts.load("chunks");
      // A chunk that breaks the contract (say, a span of characters the tokenizer ignores, 0
      // tokens)
      // quarantines its whole document, so that no document is left half-chunked.
      Dataset<Row> checked =
          new ContractEnforcer(contract)
              .withViolations(
                  rows.filter(col("kind").equalTo(ChunkRows.CHUNK))
                      .select(
                          contract.columnNames().stream().map(c -> col(c)).toArray(Column[]::new)));
      Dataset<Row> invalid =
          checked
              .filter(size(col(ContractEnforcer.VIOLATIONS)).gt(0))
              .groupBy("doc_id")
              .agg(
                  concat_ws("; ", flatten(collect_list(col(ContractEnforcer.VIOLATIONS))))
                      .as("reason"));
      Dataset<Row> chunks =
          checked
              .drop(ContractEnforcer.VIOLATIONS)
              .join(
                  invalid.select("doc_id"),
                  scala.collection.JavaConverters.asScalaBuffer(List.of("doc_id")).toSeq(),
                  "left_anti");
      Dataset<Row> failures =
          Quarantine.deadLetters(
              rows.filter(col("kind").equalTo(ChunkRows.FAILURE))
                  .select("doc_id", "reason")
                  .unionByName(invalid),
              lit("documents"),
              concat(lit("doc_id="), col("doc_id")),
              col("doc_id"),
              col("reason"));

      long input = documents.count();
      long failed = failures.count();
      Row tally =
          chunks
              .selectExpr(
                  "count(*)",
                  "coalesce(sum(CASE WHEN context_prefix IS NULL THEN 1 ELSE 0 END), 0)")
              .head();
      long chunkCount = tally.getLong(0);
      long unprefixed = options.prefixTemplate() == null ? 0 : tally.getLong(1);
      WriteResult write = run.warehouse().replaceWithin(contract, chunks, "rag_recipe", "doc_id");
      WriteResult quarantineWrite = run.quarantine(failures, failed);
      Map<String, Long> details = new LinkedHashMap<>();
      details.put("chunks", chunkCount);
      if (options.prefixTemplate() != null) {
        details.put("chunks.without_prefix", unprefixed);
      }
      details.put("chunks.inserted", write.inserted());
      details.put("chunks.updated", write.updated());
      details.put("chunks.deleted", write.deleted());
      details.put("quarantine.inserted", quarantineWrite.inserted());
      RunCounts counts = new RunCounts(input, input - failed, failed, details);

      var out = run.out();
      out.printf(
          Locale.ROOT,
          "chunk: %d document(s)%s into %d chunks of %s, tokenizer %s), rag.recipe %s%n",
          input,
          options.corpus() == null ? "" : " of corpus " + options.corpus(),
          chunkCount,
          settings.describe(),
          options.tokenizer(),
          rag.recipe());
      out.printf(Locale.ROOT, "  %d chunked, %d quarantined%n", counts.output(), failed);
      if (options.prefixTemplate() != null) {
        out.printf(
            Locale.ROOT,
            "  prefix_template: %d chunk(s) of documents with none of its fields have no prefix%n",
            unprefixed);
      }
      out.println("  " + write);
      out.flush();
      return counts;
    } finally {
      rows.unpersist();
    }
  }

  /**
   * Tags chunk rows with their RAG recipe. Another recipe's chunks must not share ids with the
   * default's even when cut the same way, so its ids are re-hashed with its name; the default
   * recipe keeps the ids of releases before recipes existed, so their embeddings stay valid.
   */
  static Dataset<Row> inRecipe(Dataset<Row> rows, RagConfig rag) {
    Column id =
        rag.isDefault()
            ? col("chunk_id")
            : substring(sha2(concat(lit(rag.recipe() + "/"), col("chunk_id")), 256), 1, 16);
    return rows.withColumn(
            "chunk_id", when(col("chunk_id").isNull(), col("chunk_id")).otherwise(id))
        .withColumn("rag_recipe", lit(rag.recipe()));
  }

  /**
   * The pure part: documents {@code (doc_id, text, corpus, title, source, meta, …)} to chunk and
   * failure rows ({@link ChunkRows#SCHEMA}).
   */
  static Dataset<Row> transform(
      SparkSession spark,
      Dataset<Row> documents,
      ChunkRows.Settings settings,
      Broadcast<byte[]> tokenizerJson) {
    JavaRDD<Row> rows =
        documents
            .select("doc_id", "text", "corpus", "title", "source", "meta")
            .javaRDD()
            .mapPartitions(new ChunkRows(settings, tokenizerJson));
    return spark.createDataFrame(rows, ChunkRows.SCHEMA);
  }

  /**
   * A chunk's indexed text as a column of {@code chunks}: {@code context_prefix} then {@code text},
   * the column form of {@link ChunkText#indexed}. BM25 indexing and embedding read chunks through
   * it, so both see what {@code chunk.prefix_template} specifies.
   */
  public static Column indexedText() {
    return concat(coalesce(col("context_prefix"), lit("")), col("text"));
  }
}
