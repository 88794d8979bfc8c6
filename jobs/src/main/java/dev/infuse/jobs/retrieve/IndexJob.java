package dev.infuse.jobs.retrieve;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.sum;

import dev.infuse.jobs.chunk.ChunkJob;
import dev.infuse.jobs.chunk.RagConfig;
import dev.infuse.jobs.embed.EmbedJob;
import dev.infuse.jobs.io.Warehouse;
import dev.infuse.jobs.run.JobRun;
import dev.infuse.jobs.run.RunCounts;
import dev.infuse.udfs.retrieve.Bm25Index;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.storage.StorageLevel;

/**
 * {@code index}: Lucene BM25 shards over {@code chunks}, and (with {@code index.dense}) the chunks'
 * embeddings for {@code embed.model} brought up to date in {@code chunk_embeddings}, as {@code
 * embed} does.
 *
 * <p>Each corpus ({@code documents.corpus}) is split into ceil(chunks / {@code
 * index.chunks_per_shard}) shards by document ({@link Shards}); each shard's index is built on an
 * executor and stored as Lucene files in a Parquet dataset, beside the corpus's term statistics,
 * under {@code <warehouse>/_indexes/bm25}; {@link IndexManifest} names the build and the {@code
 * chunks} version it came from. The index is derived data: vectors stay in {@code
 * chunk_embeddings}, and a rerun rebuilds the shards from the tables whenever {@code chunks}
 * changed (and does nothing otherwise).
 */
public final class IndexJob {
  public static final String NAME = "index";

  private final JobRun run;

  public IndexJob(JobRun run) {
    this.run = run;
  }

  /**
   * One build: its manifest, and the shard rows its files and terms come from (persisted; unpersist
   * when done).
   */
  record Built(IndexManifest manifest, Dataset<Row> rows) {
    /** {@code (corpus, shard, name, bytes)}: each shard's Lucene files. */
    Dataset<Row> files() {
      return rows.filter(col("kind").equalTo(ShardIndexRows.FILE))
          .select("corpus", "shard", "name", "bytes");
    }

    /** {@code (corpus, term, doc_freq, total_term_freq)}: each corpus's term statistics. */
    Dataset<Row> terms() {
      return rows.filter(col("kind").equalTo(ShardIndexRows.TERM))
          .groupBy("corpus", "name")
          .agg(sum("doc_freq").as("doc_freq"), sum("total_term_freq").as("total_term_freq"))
          .withColumnRenamed("name", "term");
    }
  }

  public RunCounts run() {
    SparkSession spark = run.spark();
    Warehouse warehouse = run.warehouse();
    int chunksPerShard = run.config().section(IndexConfig.class).chunksPerShard();
    Map<String, Long> details = new LinkedHashMap<>();
    long embedFailed = 0;
    if (run.config().section(IndexConfig.class).dense()) {
      RunCounts embedded = new EmbedJob(run).run();
      embedFailed = embedded.quarantined();
      embedded.details().forEach((key, value) -> details.put("embed." + key, value));
    }
    long chunksVersion = warehouse.version("chunks");
    var out = run.out();
    Configuration hadoop = spark.sparkContext().hadoopConfiguration();
    String recipe = run.config().section(RagConfig.class).recipe();
    String indexRoot = IndexManifest.root(warehouse.root(), recipe);
    IndexManifest previous = IndexManifest.read(hadoop, indexRoot);
    if (previous != null
        && previous.chunksVersion() == chunksVersion
        && previous.chunksPerShard() == chunksPerShard
        && previous.analyzer().equals(Bm25Index.ANALYZER_ID)) {
      long total =
          previous.corpora().values().stream().mapToLong(IndexManifest.CorpusShards::chunks).sum();
      out.printf(
          Locale.ROOT,
          "index: BM25 index up to date (rag.recipe %s, chunks version %d, %d chunk(s), %d"
              + " shard(s))%n",
          recipe,
          chunksVersion,
          total,
          previous.totalShards());
      out.flush();
      details.put("chunks", total);
      details.put("shards", (long) previous.totalShards());
      details.put("indexed", 0L);
      return new RunCounts(total, total - embedFailed, embedFailed, details);
    }

    Built built =
        build(
            spark,
            chunksWithCorpus(warehouse, recipe),
            chunksPerShard,
            chunksVersion,
            "build-" + run.runId());
    try {
      IndexManifest manifest = built.manifest();
      built.files().write().mode("overwrite").parquet(manifest.filesPath(indexRoot));
      built
          .terms()
          .repartition(col("corpus"))
          .write()
          .mode("overwrite")
          .parquet(manifest.termsPath(indexRoot));
      manifest.write(hadoop, indexRoot);
      if (previous != null) {
        delete(hadoop, indexRoot + "/" + previous.build());
      }
      long total =
          manifest.corpora().values().stream().mapToLong(IndexManifest.CorpusShards::chunks).sum();
      details.put("chunks", total);
      details.put("shards", (long) manifest.totalShards());
      details.put("indexed", total);
      out.printf(
          Locale.ROOT,
          "index: %d chunk(s) of %d corpus(es) in %d BM25 shard(s) (%s), chunks version %d%n",
          total,
          manifest.corpora().size(),
          manifest.totalShards(),
          Bm25Index.ANALYZER_ID,
          chunksVersion);
      manifest
          .corpora()
          .forEach(
              (corpus, c) ->
                  out.printf(
                      Locale.ROOT,
                      "  %s: %d chunk(s), %d shard(s)%n",
                      corpus,
                      c.chunks(),
                      c.shards()));
      out.flush();
      return new RunCounts(total, total - embedFailed, embedFailed, details);
    } finally {
      built.rows().unpersist();
    }
  }

  /**
   * The pure part: chunks {@code (corpus, chunk_id, doc_id, text)} to shards. Counts the chunks per
   * corpus, gives each corpus its shard count, builds every shard on an executor ({@link
   * ShardIndexRows}) and sums the collection statistics per corpus into the manifest.
   */
  static Built build(
      SparkSession spark,
      Dataset<Row> chunks,
      int chunksPerShard,
      long chunksVersion,
      String build) {
    Map<String, Long> perCorpus = new TreeMap<>();
    for (Row row : chunks.groupBy("corpus").count().collectAsList()) {
      perCorpus.put(row.getString(0), row.getLong(1));
    }
    Map<String, Integer> shards = new TreeMap<>();
    perCorpus.forEach((corpus, n) -> shards.put(corpus, Shards.count(n, chunksPerShard)));
    int totalShards = shards.values().stream().mapToInt(Integer::intValue).sum();
    Dataset<Row> placed =
        Shards.place(spark, chunks, shards, IndexManifest.offsets(shards))
            .select("corpus", "shard", "chunk_id", "doc_id", "text")
            .repartition(Math.max(1, totalShards), col("corpus"), col("shard"))
            .sortWithinPartitions("corpus", "shard", "chunk_id");
    Dataset<Row> rows =
        spark
            .createDataFrame(
                placed.javaRDD().mapPartitions(new ShardIndexRows()), ShardIndexRows.SCHEMA)
            .persist(StorageLevel.MEMORY_AND_DISK());
    Map<String, IndexManifest.CorpusShards> corpora = new TreeMap<>();
    for (Row c :
        rows.filter(col("kind").equalTo(ShardIndexRows.COLLECTION))
            .groupBy("corpus")
            .agg(sum("max_doc"), sum("doc_count"), sum("sum_doc_freq"), sum("sum_total_term_freq"))
            .collectAsList()) {
      String corpus = c.getString(0);
      corpora.put(
          corpus,
          new IndexManifest.CorpusShards(
              shards.get(corpus),
              perCorpus.get(corpus),
              c.getLong(1),
              c.getLong(2),
              c.getLong(3),
              c.getLong(4)));
    }
    return new Built(
        new IndexManifest(Bm25Index.ANALYZER_ID, chunksVersion, chunksPerShard, build, corpora),
        rows);
  }

  /**
   * The chunks of one RAG recipe with the corpus of their document: {@code (corpus, chunk_id,
   * doc_id, text)}, where text is what BM25 indexes: the chunk's metadata prefix, if any, then its
   * text ({@link ChunkJob#indexedText}).
   */
  static Dataset<Row> chunksWithCorpus(Warehouse warehouse, String recipe) {
    return warehouse
        .read("chunks")
        .filter(col("rag_recipe").equalTo(recipe))
        .select(col("chunk_id"), col("doc_id"), ChunkJob.indexedText().as("text"))
        .join(warehouse.read("documents").select("doc_id", "corpus"), "doc_id")
        .select("corpus", "chunk_id", "doc_id", "text");
  }

  private static void delete(Configuration hadoop, String dir) {
    try {
      Path path = new Path(dir);
      FileSystem fs = path.getFileSystem(hadoop);
      if (fs.exists(path)) {
        fs.delete(path, true);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot delete the old index build " + dir, e);
    }
  }
}
