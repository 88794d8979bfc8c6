package dev.infuse.jobs.retrieve;

import static org.apache.spark.sql.functions.array;
import static org.apache.spark.sql.functions.coalesce;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.concat;
import static org.apache.spark.sql.functions.explode;
import static org.apache.spark.sql.functions.expr;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.sha2;
import static org.apache.spark.sql.functions.when;

import dev.infuse.jobs.chunk.ChunkJob;
import dev.infuse.jobs.chunk.RagConfig;
import dev.infuse.jobs.config.ConfigException;
import dev.infuse.jobs.contract.Contract;
import dev.infuse.jobs.contract.Contracts;
import dev.infuse.jobs.embed.EmbedJob;
import dev.infuse.jobs.generate.PromptLibrary;
import dev.infuse.jobs.io.Quarantine;
import dev.infuse.jobs.io.Warehouse;
import dev.infuse.jobs.io.WriteResult;
import dev.infuse.jobs.run.JobRun;
import dev.infuse.jobs.run.RunCounts;
import dev.infuse.udfs.embed.EmbedderSpec;
import dev.infuse.udfs.embed.TextEmbedder;
import dev.infuse.udfs.model.ModelSpec;
import dev.infuse.udfs.prompt.PromptTemplate;
import dev.infuse.udfs.retrieve.Bm25Index;
import dev.infuse.udfs.retrieve.Bm25Statistics;
import dev.infuse.udfs.retrieve.CrossEncoder;
import dev.infuse.udfs.retrieve.CrossEncoderFiles;
import dev.infuse.udfs.retrieve.CrossEncoderSpec;
import dev.infuse.udfs.retrieve.QueryTemplate;
import dev.infuse.udfs.retrieve.RecallAtK;
import dev.infuse.udfs.retrieve.Retriever;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.apache.spark.HashPartitioner;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.storage.StorageLevel;
import scala.Tuple2;

/**
 * {@code retrieve}: the top k chunks per question with {@code bm25}, {@code dense} or {@code
 * hybrid}, into {@code retrievals}, and recall@k into {@code retrieval_recall} where the gold
 * evidence is known.
 *
 * <p>At scale (docs/ARCHITECTURE.md, Retrieval): every question becomes one search target per shard
 * it must search: the one shard holding its document when it is document-scoped, every shard of its
 * corpus when it is corpus-wide. Targets, the shards' Lucene files and the shards' vectors are
 * co-grouped by shard, so each shard's index is opened once on an executor and answers its queries
 * as a batch ({@link ShardSearch}). BM25 scores with the corpus's statistics (the index's term
 * counts for the query tokens, looked up once and broadcast), so a shard scores each chunk exactly
 * as one index over the whole corpus would; the shards' local tops then merge per question ({@link
 * RankMerge}). The result equals a single-JVM search over the same chunks.
 *
 * <p>Each question is searched with the query its {@code retrieve.query_template} renders. With a
 * reranker ({@code retrieve.rerank}), the first stage retrieves {@code rerank_depth} chunks, a
 * cross-encoder scores each against the query on the executors ({@link RerankRows}), and the best
 * {@code rerank_top_k} are kept; rows keep their first-stage rank and score. Every row records its
 * question's scope (document or corpus), the query template and the reranker, and the run counts
 * the questions of each scope.
 */
public final class RetrieveJob {
  public static final String NAME = "retrieve";
  public static final String TABLE = "retrievals";
  public static final String RECALL_TABLE = "retrieval_recall";

  private final JobRun run;

  public RetrieveJob(JobRun run) {
    this.run = run;
  }

  public RunCounts run() {
    SparkSession spark = run.spark();
    Warehouse warehouse = run.warehouse();
    RetrieveConfig config = run.config().section(RetrieveConfig.class);
    Retriever retriever = config.retriever();
    SearchSettings settings =
        new SearchSettings(retriever, config.firstStageK(), config.rrfDepth(), config.rrfK());
    String recipe = run.config().section(RagConfig.class).recipe();
    QueryTemplate template = queryTemplate(spark, config);
    CrossEncoderSpec reranker = config.rerankSpec();
    String rerankerId = reranker == null ? null : rerankerId(reranker);
    IndexManifest manifest = currentManifest(spark, warehouse, recipe);
    var out = run.out();

    Dataset<Row> questions = warehouse.read("questions");
    if (config.benchmark() != null) {
      questions = questions.filter(col("benchmark").equalTo(config.benchmark()));
    }
    if (config.maxQuestions() > 0) {
      questions = questions.orderBy("question_id").limit(config.maxQuestions());
    }
    Dataset<Row> documents =
        warehouse
            .read("documents")
            .select(
                col("doc_id"),
                col("corpus").as("doc_corpus"),
                col("title").as("doc_title"),
                col("meta").getItem("author").as("doc_author"),
                col("meta").getItem("year").as("doc_year"));
    Dataset<Row> scoped =
        scope(
                questions
                    .join(
                        documents, questions.col("doc_id").equalTo(documents.col("doc_id")), "left")
                    .drop(documents.col("doc_id")),
                config.scoping())
            .persist(StorageLevel.MEMORY_AND_DISK());
    try {
      long read = scoped.count();
      Dataset<Row> indexed =
          scoped.filter(
              col("corpus").isin(manifest.corpora().keySet().toArray()).or(col("unscopable")));
      long skipped = read - indexed.count();
      Dataset<Row> chunkDocs =
          warehouse
              .read("chunks")
              .filter(col("rag_recipe").equalTo(recipe))
              .select("doc_id")
              .distinct();
      // A document-scoped question whose document has no chunks cannot be answered from retrieval.
      Dataset<Row> orphans =
          indexed
              .filter(col("scope_doc_id").isNotNull())
              .join(
                  chunkDocs,
                  indexed.col("scope_doc_id").equalTo(chunkDocs.col("doc_id")),
                  "left_anti")
              .withColumn(
                  "reason",
                  concat(
                      lit("document "),
                      col("scope_doc_id"),
                      lit(" has no chunks; run chunk and index first")))
              .unionByName(
                  indexed
                      .filter(col("unscopable"))
                      .withColumn(
                          "reason",
                          lit("retrieve.scoping is document but the question has no doc_id")));
      Dataset<Row> searchable =
          indexed.join(
              orphans.select("question_id"), scalaSeq(List.of("question_id")), "left_anti");
      long orphanCount = orphans.count();

      String modelId = null;
      ModelSpec<TextEmbedder> embedder = null;
      Dataset<Row> vectors = null;
      if (retriever.usesDense()) {
        modelId = EmbedJob.resolveModelId(run.config().section(EmbedderSpec.class));
        embedder = run.config().section(EmbedderSpec.class);
        vectors = vectors(warehouse, modelId, recipe);
      }
      Dataset<Row> queries =
          queries(spark, searchable, embedder, modelId, template)
              .persist(StorageLevel.MEMORY_AND_DISK());
      try {
        String indexRoot = IndexManifest.root(warehouse.root(), recipe);
        Dataset<Row> files =
            retriever.usesBm25() ? spark.read().parquet(manifest.filesPath(indexRoot)) : null;
        Dataset<Row> terms =
            retriever.usesBm25() ? spark.read().parquet(manifest.termsPath(indexRoot)) : null;
        Dataset<Row> merged = search(spark, queries, files, terms, vectors, manifest, settings);
        if (reranker != null) {
          // The reranker reads what was indexed: the chunk's metadata prefix, then its text.
          merged =
              rerank(
                  spark,
                  merged,
                  queries,
                  warehouse
                      .read("chunks")
                      .filter(col("rag_recipe").equalTo(recipe))
                      .select(col("chunk_id"), ChunkJob.indexedText().as("text")),
                  reranker,
                  config.rerankTopK());
        }
        merged = merged.persist(StorageLevel.MEMORY_AND_DISK());
        try {
          return write(
              merged,
              orphans,
              read,
              skipped,
              orphanCount,
              new RunLabels(settings, config, template.tag(), rerankerId));
        } finally {
          merged.unpersist();
        }
      } finally {
        queries.unpersist();
      }
    } finally {
      scoped.unpersist();
    }
  }

  /** What a run was, for its rows and its report: settings, query template, reranker. */
  private record RunLabels(
      SearchSettings settings, RetrieveConfig config, String queryTemplate, String reranker) {}

  private RunCounts write(
      Dataset<Row> merged,
      Dataset<Row> orphans,
      long read,
      long skipped,
      long orphanCount,
      RunLabels labels) {
    Warehouse warehouse = run.warehouse();
    Contract contract = Contracts.load(TABLE);
    SearchSettings settings = labels.settings();
    String retriever = settings.retriever().id();
    String recipe = run.config().section(RagConfig.class).recipe();
    Dataset<Row> rows =
        merged
            .filter(col("kind").equalTo(RankMerge.CHUNK))
            .withColumn("run_id", lit(run.runId()))
            .withColumn("rag_recipe", lit(recipe))
            .withColumn("retriever", lit(retriever))
            .withColumn("query_template", lit(labels.queryTemplate()))
            .withColumn("reranker", lit(labels.reranker()).cast("string"))
            .select(contract.columnNames().stream().map(c -> col(c)).toArray(Column[]::new));
    Dataset<Row> perQuestion = merged.filter(col("kind").equalTo(RankMerge.QUESTION));
    long retrieved = perQuestion.count();
    long noResults =
        perQuestion
            .join(
                rows.select("question_id").distinct(),
                scalaSeq(List.of("question_id")),
                "left_anti")
            .count();

    // Every column but run_id: a rank whose result is unchanged keeps the run that found it.
    List<String> sameResult =
        contract.columnNames().stream().filter(c -> !c.equals("run_id")).toList();
    WriteResult upsert;
    WriteResult delete = WriteResult.unchanged(TABLE);
    if (warehouse.exists(TABLE)) {
      Dataset<Row> existing = warehouse.read(TABLE).select(columns(sameResult));
      // So a rerun commits nothing. Null-safe: the reranker is null on a run without one.
      Column same =
          sameResult.stream()
              .map(c -> rows.col(c).eqNullSafe(existing.col(c)))
              .reduce(Column::and)
              .orElseThrow();
      upsert = warehouse.upsert(contract, rows.join(existing, same, "left_anti"));
      // Ranks this run no longer fills (fewer hits than before) are deleted for the questions it
      // retrieved.
      Dataset<Row> stale =
          warehouse
              .read(TABLE)
              .filter(col("rag_recipe").equalTo(recipe).and(col("retriever").equalTo(retriever)))
              .join(
                  perQuestion.select("question_id"), scalaSeq(List.of("question_id")), "left_semi")
              .join(
                  rows.select("rag_recipe", "retriever", "question_id", "rank"),
                  scalaSeq(List.of("rag_recipe", "retriever", "question_id", "rank")),
                  "left_anti")
              .select("rag_recipe", "retriever", "question_id", "rank");
      delete = warehouse.deleteKeys(contract, stale);
    } else {
      upsert = warehouse.upsert(contract, rows);
    }

    List<Row> recallRows = recall(perQuestion, settings, labels.config().kept());
    Contract recallContract = Contracts.load(RECALL_TABLE);
    WriteResult recallWrite =
        recallRows.isEmpty()
            ? WriteResult.unchanged(RECALL_TABLE)
            : warehouse.upsert(
                recallContract, run.spark().createDataFrame(recallRows, recallContract.schema()));

    WriteResult quarantine =
        run.quarantine(
            Quarantine.deadLetters(
                orphans,
                lit("questions"),
                concat(lit("question_id="), col("question_id")),
                col("question"),
                col("reason")),
            orphanCount);

    Map<String, Long> details = new LinkedHashMap<>();
    details.put("questions", read);
    details.put("skipped_no_indexed_corpus", skipped);
    details.put("retrieved", retrieved);
    details.put("no_results", noResults);
    Map<String, Long> scopes = new TreeMap<>();
    for (Row row : perQuestion.groupBy("scope").count().collectAsList()) {
      scopes.put(row.getString(0), row.getLong(1));
    }
    // Which scope each question searched: the report labels document scope "oracle document".
    details.put("scope.document", scopes.getOrDefault(Scoping.DOCUMENT.id(), 0L));
    details.put("scope.corpus", scopes.getOrDefault(Scoping.CORPUS.id(), 0L));
    details.put("reranked", labels.reranker() == null ? 0L : retrieved);
    details.put(TABLE + ".inserted", upsert.inserted());
    details.put(TABLE + ".updated", upsert.updated());
    details.put(TABLE + ".deleted", delete.deleted());
    details.put(RECALL_TABLE + ".rows", (long) recallRows.size());
    details.put("quarantine.inserted", quarantine.inserted());

    var out = run.out();
    out.printf(
        Locale.ROOT,
        "retrieve: %d question(s) with %s, k %d%s%n",
        retrieved,
        retriever,
        settings.k(),
        settings.retriever() == Retriever.HYBRID
            ? " (rrf_k " + settings.rrfK() + ", depth " + settings.rrfDepth() + ")"
            : "");
    out.printf(
        Locale.ROOT,
        "  query template %s; scope: %d question(s) searched their own document (oracle document),"
            + " %d their whole corpus%n",
        labels.queryTemplate(),
        details.get("scope.document"),
        details.get("scope.corpus"));
    out.println(
        labels.reranker() == null
            ? "  no reranker (retrieve.rerank is null): ranks are the first stage's"
            : "  reranked by cross-encoder "
                + labels.reranker()
                + ": the top "
                + labels.config().rerankTopK()
                + " of "
                + settings.k()
                + " first-stage chunks kept");
    if (skipped > 0) {
      out.printf(
          Locale.ROOT,
          "  %d question(s) skipped: their benchmark has no indexed documents%n",
          skipped);
    }
    if (noResults > 0) {
      out.printf(Locale.ROOT, "  %d question(s) matched no chunk%n", noResults);
    }
    if (orphanCount > 0) {
      out.printf(
          Locale.ROOT,
          "  %d question(s) quarantined: no chunks to search in their scope%n",
          orphanCount);
    }
    for (Row recall : recallRows) {
      out.printf(
          Locale.ROOT,
          "  recall@%d %s: %.3f (%d/%d)%n",
          recall.getInt(4),
          recall.getString(1),
          recall.getDouble(5),
          recall.getLong(6),
          recall.getLong(7));
    }
    out.println("  " + upsert);
    if (delete.committed()) {
      out.println("  " + TABLE + ": " + delete.deleted() + " rank(s) no longer filled deleted");
    }
    out.flush();
    return new RunCounts(read - skipped, retrieved, orphanCount, details);
  }

  /**
   * recall@k rows per benchmark for questions with known gold evidence; none when no question has
   * any.
   */
  private List<Row> recall(Dataset<Row> perQuestion, SearchSettings settings, int kept) {
    Map<String, Map<Integer, Long>> byBenchmark = new TreeMap<>();
    for (Row row :
        perQuestion
            .filter(col("gold_rank").geq(0))
            .groupBy("benchmark", "gold_rank")
            .count()
            .collectAsList()) {
      byBenchmark
          .computeIfAbsent(row.getString(0), b -> new HashMap<>())
          .put(row.getInt(1), row.getLong(2));
    }
    List<Row> rows = new ArrayList<>();
    byBenchmark.forEach(
        (benchmark, ranks) -> {
          long n = ranks.values().stream().mapToLong(Long::longValue).sum();
          for (int k : run.config().section(RetrieveConfig.class).recallKs()) {
            if (k > kept) {
              continue; // only `kept` chunks were retrieved: recall beyond them is unknown
            }
            long hits =
                ranks.entrySet().stream()
                    .filter(e -> e.getKey() >= 1 && e.getKey() <= k)
                    .mapToLong(Map.Entry::getValue)
                    .sum();
            rows.add(
                RowFactory.create(
                    run.runId(),
                    benchmark,
                    run.config().section(RagConfig.class).recipe(),
                    settings.retriever().id(),
                    k,
                    RecallAtK.recall(hits, n),
                    hits,
                    n));
          }
        });
    return rows;
  }

  /**
   * Questions with their search scope: {@code corpus} (the document's corpus, else the benchmark's
   * name) and {@code scope_doc_id} (the document to search within, null for the whole corpus), and
   * {@code gold} (the evidence documents in {@code meta.evidence_doc_ids}, null when unknown); then
   * {@code scope} ({@code document} or {@code corpus}: what the question searches, {@code auto}
   * resolved) and what a query template may use: the document's {@code title}, {@code author} and
   * {@code year}, and the question's {@code options}.
   */
  static Dataset<Row> scope(Dataset<Row> questionsWithCorpus, Scoping scoping) {
    // auto and document: a question about one document searches it; corpus: every question its
    // corpus.
    Column scopeDoc = scoping == Scoping.CORPUS ? lit(null).cast("string") : col("doc_id");
    Column gold =
        expr(
            "CASE WHEN length(trim(coalesce(meta['evidence_doc_ids'], ''))) = 0 THEN NULL"
                + " ELSE filter(split(meta['evidence_doc_ids'], ','), x -> length(x) > 0) END");
    // Forced document scoping cannot serve a question without a document: it is quarantined, not
    // widened.
    Column unscopable = scoping == Scoping.DOCUMENT ? col("doc_id").isNull() : lit(false);
    return questionsWithCorpus.select(
        col("question_id"),
        col("benchmark"),
        coalesce(col("doc_corpus"), col("benchmark")).as("corpus"),
        scopeDoc.as("scope_doc_id"),
        col("question"),
        gold.as("gold"),
        unscopable.as("unscopable"),
        when(scopeDoc.isNotNull(), lit(Scoping.DOCUMENT.id()))
            .otherwise(lit(Scoping.CORPUS.id()))
            .as("scope"),
        col("doc_title").as("title"),
        col("doc_author").as("author"),
        col("doc_year").as("year"),
        col("options"));
  }

  /**
   * Questions to queries ({@link QueryRows#SCHEMA}): tokens, and vectors when {@code embedder} is
   * set.
   */
  static Dataset<Row> queries(
      SparkSession spark,
      Dataset<Row> scoped,
      ModelSpec<TextEmbedder> embedder,
      String modelId,
      QueryTemplate template) {
    int parallelism = spark.sparkContext().defaultParallelism();
    Dataset<Row> input =
        scoped.select(
            "question_id",
            "benchmark",
            "corpus",
            "scope_doc_id",
            "question",
            "gold",
            "scope",
            "title",
            "author",
            "year",
            "options");
    if (input.rdd().getNumPartitions() < parallelism) {
      input = input.repartition(parallelism);
    }
    return spark.createDataFrame(
        input
            .javaRDD()
            .mapPartitions(
                new QueryRows(embedder, modelId, PromptLibrary.toJson(template.template()))),
        QueryRows.SCHEMA);
  }

  /**
   * The pure part: queries to final rankings ({@link RankMerge#SCHEMA}).
   *
   * @param files {@code (corpus, shard, name, bytes)}: the shards' Lucene files; null when BM25 is
   *     not used
   * @param terms {@code (corpus, term, doc_freq, total_term_freq)}: the corpora's term statistics;
   *     null likewise
   * @param vectors {@code (corpus, chunk_id, doc_id, vector)} of every indexed chunk; null when
   *     dense is not used
   */
  static Dataset<Row> search(
      SparkSession spark,
      Dataset<Row> queries,
      Dataset<Row> files,
      Dataset<Row> terms,
      Dataset<Row> vectors,
      IndexManifest manifest,
      SearchSettings settings) {
    JavaSparkContext jsc = JavaSparkContext.fromSparkContext(spark.sparkContext());
    Map<String, Integer> shards = manifest.shards();
    Map<String, Integer> offsets = manifest.offsets();
    int total = Math.max(1, manifest.totalShards());
    Dataset<Row> shardTable = Shards.table(spark, shards, offsets);

    Dataset<Row> targets =
        queries
            .join(org.apache.spark.sql.functions.broadcast(shardTable), "corpus")
            .withColumn(
                "shard",
                when(
                        col("scope_doc_id").isNotNull(),
                        array(Shards.shardOf(col("scope_doc_id"), col("n_shards"))))
                    .otherwise(expr("sequence(0, n_shards - 1)")))
            .withColumn("shard", explode(col("shard")))
            .withColumn("global_shard", col("shard_offset").plus(col("shard")));
    JavaPairRDD<Integer, Row> targetPairs =
        targets
            .select(
                col("global_shard"),
                col("question_id"),
                col("corpus"),
                col("scope_doc_id"),
                col("tokens"),
                col("vector"))
            .javaRDD()
            .mapToPair(row -> new Tuple2<>(row.getInt(0), row));

    JavaPairRDD<Integer, Row> filePairs = jsc.<Integer, Row>parallelizePairs(List.of());
    Map<String, Bm25Statistics> statistics = new HashMap<>();
    if (settings.retriever().usesBm25()) {
      filePairs =
          files
              .join(org.apache.spark.sql.functions.broadcast(shardTable), "corpus")
              .select(
                  col("shard_offset").plus(col("shard")).as("global_shard"),
                  col("name"),
                  col("bytes"))
              .javaRDD()
              .mapToPair(row -> new Tuple2<>(row.getInt(0), row));
      statistics = statistics(queries, terms, manifest);
    }
    JavaPairRDD<Integer, Row> vectorPairs = jsc.<Integer, Row>parallelizePairs(List.of());
    if (settings.retriever().usesDense()) {
      vectorPairs =
          Shards.place(spark, vectors, shards, offsets)
              .join(
                  org.apache.spark.sql.functions.broadcast(
                      shardTable.select("corpus", "shard_offset")),
                  "corpus")
              .select(
                  col("shard_offset").plus(col("shard")).as("global_shard"),
                  col("chunk_id"),
                  col("doc_id"),
                  col("vector"))
              .javaRDD()
              .mapToPair(row -> new Tuple2<>(row.getInt(0), row));
    }
    Broadcast<Map<String, Bm25Statistics>> stats = jsc.broadcast(statistics);
    var local =
        targetPairs
            .cogroup(filePairs, vectorPairs, new HashPartitioner(total))
            .flatMap(new ShardSearch(settings, stats));

    JavaPairRDD<String, Row> hits = local.mapToPair(row -> new Tuple2<>(row.getString(0), row));
    JavaPairRDD<String, Row> info =
        queries
            .select("question_id", "benchmark", "gold", "scope")
            .javaRDD()
            .mapToPair(row -> new Tuple2<>(row.getString(0), row));
    int partitions = Math.max(spark.sparkContext().defaultParallelism(), 1);
    return spark.createDataFrame(
        hits.cogroup(info, partitions).flatMap(new RankMerge(settings)), RankMerge.SCHEMA);
  }

  /**
   * The cross-encoder stage: each question's first-stage chunks ({@code merged}, {@link
   * RankMerge#SCHEMA}) scored against its query on the executors and cut to the best {@code topK}
   * ({@link RerankRows}), in the same schema.
   *
   * @param queries {@link QueryRows#SCHEMA}: every question searched, with its query text
   * @param chunkTexts {@code (chunk_id, text)} of the chunks
   */
  static Dataset<Row> rerank(
      SparkSession spark,
      Dataset<Row> merged,
      Dataset<Row> queries,
      Dataset<Row> chunkTexts,
      ModelSpec<CrossEncoder> model,
      int topK) {
    Dataset<Row> candidates =
        merged
            .filter(col("kind").equalTo(RankMerge.CHUNK))
            .join(chunkTexts, "chunk_id")
            .select("question_id", "rank", "chunk_id", "doc_id", "score", "text");
    long missing = merged.filter(col("kind").equalTo(RankMerge.CHUNK)).count() - candidates.count();
    if (missing != 0) {
      throw new IllegalStateException(
          missing + " retrieved chunk(s) are not in chunks; run `infuse index` again");
    }
    JavaPairRDD<String, Row> byQuestion =
        candidates
            .javaRDD()
            .mapToPair(
                row ->
                    new Tuple2<>(
                        row.getString(0),
                        RowFactory.create(
                            row.getInt(1),
                            row.getString(2),
                            row.getString(3),
                            row.getDouble(4),
                            row.getString(5))));
    JavaPairRDD<String, Row> info =
        queries
            .select("question_id", "benchmark", "scope", "query", "gold")
            .javaRDD()
            .mapToPair(row -> new Tuple2<>(row.getString(0), row));
    int partitions = Math.max(spark.sparkContext().defaultParallelism(), 1);
    return spark.createDataFrame(
        byQuestion.cogroup(info, partitions).flatMap(new RerankRows(model, topK)),
        RankMerge.SCHEMA);
  }

  /**
   * Each corpus's BM25 statistics for the tokens its queries use: the collection counts and those
   * terms'.
   */
  static Map<String, Bm25Statistics> statistics(
      Dataset<Row> queries, Dataset<Row> terms, IndexManifest manifest) {
    Dataset<Row> wanted =
        queries.select(col("corpus"), explode(col("tokens")).as("term")).distinct();
    Map<String, Map<String, Bm25Statistics.TermCounts>> counts = new HashMap<>();
    for (Row row :
        terms
            .join(wanted, scalaSeq(List.of("corpus", "term")))
            .select("corpus", "term", "doc_freq", "total_term_freq")
            .collectAsList()) {
      counts
          .computeIfAbsent(row.getString(0), c -> new HashMap<>())
          .put(row.getString(1), new Bm25Statistics.TermCounts(row.getLong(2), row.getLong(3)));
    }
    Map<String, Bm25Statistics> statistics = new HashMap<>();
    manifest
        .corpora()
        .forEach(
            (corpus, c) ->
                statistics.put(corpus, c.statistics(counts.getOrDefault(corpus, Map.of()))));
    return statistics;
  }

  /**
   * {@code (corpus, chunk_id, doc_id, vector)} of every current chunk, failing when a chunk lacks
   * its vector.
   */
  private static Dataset<Row> vectors(Warehouse warehouse, String modelId, String recipe) {
    Dataset<Row> chunks =
        IndexJob.chunksWithCorpus(warehouse, recipe)
            .withColumn("text_sha256", sha2(col("text"), 256))
            .drop("text");
    Dataset<Row> embeddings =
        warehouse.exists("chunk_embeddings")
            ? warehouse
                .read("chunk_embeddings")
                .filter(col("model").equalTo(modelId))
                .select("chunk_id", "text_sha256", "vector")
            : null;
    long missing =
        embeddings == null
            ? chunks.count()
            : chunks
                .join(embeddings, scalaSeq(List.of("chunk_id", "text_sha256")), "left_anti")
                .count();
    if (missing > 0) {
      throw new IllegalStateException(
          missing
              + " chunk(s) have no current embedding for model "
              + modelId
              + "; run `infuse index` (with index.dense true) or `infuse embed` first");
    }
    return chunks
        .join(embeddings, scalaSeq(List.of("chunk_id", "text_sha256")))
        .select("corpus", "chunk_id", "doc_id", "vector");
  }

  /**
   * The recipe's index manifest, refusing a missing or stale index (built from another chunks
   * version).
   */
  private static IndexManifest currentManifest(
      SparkSession spark, Warehouse warehouse, String recipe) {
    String indexRoot = IndexManifest.root(warehouse.root(), recipe);
    IndexManifest manifest =
        IndexManifest.read(spark.sparkContext().hadoopConfiguration(), indexRoot);
    if (manifest == null) {
      throw new IllegalStateException(
          "no BM25 index of rag.recipe "
              + recipe
              + " in "
              + indexRoot
              + "; run `infuse index` first (with rag.recipe "
              + recipe
              + ")");
    }
    long chunksVersion = warehouse.version("chunks");
    if (manifest.chunksVersion() != chunksVersion
        || !manifest.analyzer().equals(Bm25Index.ANALYZER_ID)) {
      throw new IllegalStateException(
          "the BM25 index was built from chunks version "
              + manifest.chunksVersion()
              + " ("
              + manifest.analyzer()
              + ") but chunks is at version "
              + chunksVersion
              + " ("
              + Bm25Index.ANALYZER_ID
              + "); run `infuse index` again (with rag.recipe "
              + recipe
              + ")");
    }
    return manifest;
  }

  /** The configured query template from run.prompts_dir. */
  private QueryTemplate queryTemplate(SparkSession spark, RetrieveConfig config) {
    PromptTemplate prompt =
        PromptLibrary.load(
                spark.sparkContext().hadoopConfiguration(), run.config().run().promptsDir())
            .get(config.queryTemplate());
    try {
      return QueryTemplate.of(prompt);
    } catch (IllegalArgumentException e) {
      throw new ConfigException(List.of("retrieve.query_template: " + e.getMessage()));
    }
  }

  /** The reranker's id, resolving its directory on the driver so a bad path fails first. */
  private static String rerankerId(CrossEncoderSpec spec) {
    try {
      return CrossEncoderFiles.resolve(spec.model(), spec.maxTokens()).modelId();
    } catch (IllegalArgumentException e) {
      throw new ConfigException(List.of(e.getMessage()));
    }
  }

  private static Column[] columns(List<String> names) {
    return names.stream().map(n -> col(n)).toArray(Column[]::new);
  }

  private static scala.collection.Seq<String> scalaSeq(List<String> names) {
    return scala.collection.JavaConverters.asScalaBuffer(names).toSeq();
  }
}
