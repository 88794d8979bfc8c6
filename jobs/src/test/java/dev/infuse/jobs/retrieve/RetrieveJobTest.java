package dev.infuse.jobs.retrieve;

import static org.assertj.core.api.Assertions.assertThat;

import dev.infuse.jobs.QualitySample;
import dev.infuse.jobs.SparkTestSession;
import dev.infuse.jobs.SparkTestSession.CliResult;
import dev.infuse.jobs.io.Warehouse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;

/**
 * index and retrieve on the real FinanceBench sample, ingested and chunked by the existing jobs.
 */
class RetrieveJobTest {
  private final SparkSession spark = SparkTestSession.get();

  @Test
  void financeBenchQuestionsRetrieveFromTheWholeCorpusWithRecallAgainstTheirEvidencePages()
      throws Exception {
    String warehouse = SparkTestSession.tempDir("retrieve").toString();
    // The first 30 records of the real file, byte for byte: their evidence pages are the corpus.
    Path sample =
        SparkTestSession.tempDir("financebench").resolve("financebench_open_source.jsonl");
    try (var lines =
        Files.lines(
            SparkTestSession.benchmark("financebench").resolve("financebench_open_source.jsonl"))) {
      Files.write(sample, lines.limit(30).toList());
    }
    CliResult ingest =
        SparkTestSession.cli(
            "ingest",
            "--format",
            "financebench",
            "--input",
            sample.toString(),
            "--warehouse",
            warehouse);
    assertThat(ingest.code()).as(ingest.toString()).isZero();
    assertThat(
            SparkTestSession.cli("chunk", "--warehouse", warehouse, "--max-tokens", "512").code())
        .isZero();

    CliResult retrieveFirst = SparkTestSession.cli("retrieve", "--warehouse", warehouse);
    assertThat(retrieveFirst.code()).as(retrieveFirst.toString()).isEqualTo(1);
    assertThat(retrieveFirst.err()).contains("no BM25 index").contains("run `infuse index` first");

    CliResult index =
        SparkTestSession.cli(
            "index", "--warehouse", warehouse, "--device", "cpu", "--chunks-per-shard", "10");
    assertThat(index.code()).as(index.toString()).isZero();
    Warehouse w = new Warehouse(spark, warehouse);
    long chunks = w.read("chunks").count();
    assertThat(chunks).isGreaterThan(20);
    assertThat(index.out())
        .contains(
            "index: "
                + chunks
                + " chunk(s) of 1 corpus(es) in "
                + ((chunks + 9) / 10)
                + " BM25 shard(s)");
    assertThat(w.read("chunk_embeddings").count()).isEqualTo(chunks);

    CliResult hybrid =
        SparkTestSession.cli(
            "retrieve",
            "--warehouse",
            warehouse,
            "--benchmark",
            "financebench",
            "--max-questions",
            "6");
    assertThat(hybrid.code()).as(hybrid.toString()).isZero();
    assertThat(hybrid.out())
        .contains("retrieve: 6 question(s) with hybrid, k 10 (rrf_k 60, depth 50)")
        .contains("recall@10 financebench");
    w.registerViews();
    Row shape =
        spark
            .sql(
                "SELECT count(*), count(DISTINCT question_id), min(rank), max(rank),"
                    + " sum(CASE WHEN doc_id LIKE 'financebench:%' THEN 1 ELSE 0 END), count(DISTINCT run_id) FROM retrievals"
                    + " WHERE retriever = 'hybrid'")
            .head();
    assertThat(shape.getLong(0)).isEqualTo(60);
    assertThat(shape.getLong(1)).isEqualTo(6);
    assertThat(shape.getInt(2)).isEqualTo(1);
    assertThat(shape.getInt(3)).isEqualTo(10);
    assertThat(shape.getLong(4)).isEqualTo(60);
    assertThat(shape.getLong(5)).isEqualTo(1);
    // Corpus-wide: the chunks come from many pages, not one document per question.
    assertThat(spark.sql("SELECT count(DISTINCT doc_id) FROM retrievals").head().getLong(0))
        .isGreaterThan(6);
    // Every retrieved chunk is the chunk of the document the row names.
    assertThat(
            spark
                .sql(
                    "SELECT count(*) FROM retrievals r JOIN chunks c USING (chunk_id) WHERE r.doc_id = c.doc_id")
                .head()
                .getLong(0))
        .isEqualTo(60);

    // recall@k recomputed from retrievals and the evidence pages in questions.meta.
    List<Row> recall =
        spark
            .sql(
                "SELECT k, recall, hits, n FROM retrieval_recall WHERE retriever = 'hybrid'"
                    + " AND benchmark = 'financebench' ORDER BY k")
            .collectAsList();
    assertThat(recall).extracting(r -> r.getInt(0)).containsExactly(1, 3, 5, 10);
    double previous = 0;
    for (Row row : recall) {
      long expectedHits =
          spark
              .sql(
                  "SELECT count(DISTINCT r.question_id) FROM retrievals r JOIN questions q"
                      + " USING (question_id) WHERE r.retriever = 'hybrid' AND r.rank <= "
                      + row.getInt(0)
                      + " AND array_contains(split(q.meta['evidence_doc_ids'], ','), r.doc_id)")
              .head()
              .getLong(0);
      assertThat(row.getLong(2)).as("hits at " + row.getInt(0)).isEqualTo(expectedHits);
      assertThat(row.getLong(3)).isEqualTo(6);
      assertThat(row.getDouble(1)).isEqualTo(expectedHits / 6.0).isGreaterThanOrEqualTo(previous);
      previous = row.getDouble(1);
    }
    // Lexical and dense retrieval together find most evidence pages of these questions in the top
    // 10.
    assertThat(previous).isGreaterThanOrEqualTo(0.5);

    // A rerun finds the same chunks: retrievals is not rewritten, and the index is not rebuilt.
    long version = w.version("retrievals");
    CliResult again =
        SparkTestSession.cli(
            "retrieve",
            "--warehouse",
            warehouse,
            "--benchmark",
            "financebench",
            "--max-questions",
            "6");
    assertThat(again.code()).as(again.toString()).isZero();
    assertThat(w.version("retrievals")).isEqualTo(version);
    CliResult reindex =
        SparkTestSession.cli(
            "index", "--warehouse", warehouse, "--device", "cpu", "--chunks-per-shard", "10");
    assertThat(reindex.code()).as(reindex.toString()).isZero();
    assertThat(reindex.out()).contains("BM25 index up to date");

    // Another retriever adds its own rows beside hybrid's, with k 3.
    CliResult bm25 =
        SparkTestSession.cli(
            "retrieve",
            "--warehouse",
            warehouse,
            "--benchmark",
            "financebench",
            "--max-questions",
            "6",
            "--retriever",
            "bm25",
            "--k",
            "3");
    assertThat(bm25.code()).as(bm25.toString()).isZero();
    Row byRetriever =
        w.read("retrievals").groupBy().pivot("retriever", List.of("bm25", "hybrid")).count().head();
    assertThat(byRetriever.getLong(0)).isEqualTo(18);
    assertThat(byRetriever.getLong(1)).isEqualTo(60);
    // recall@5 and @10 are beyond k 3: only k 1 and 3 get rows.
    assertThat(
            w.read("retrieval_recall")
                .filter("retriever = 'bm25'")
                .orderBy("k")
                .select("k")
                .collectAsList())
        .extracting(r -> r.getInt(0))
        .containsExactly(1, 3);
    // BM25 rank 1 is the chunk with the best BM25 score among the question's chunks.
    assertThat(
            spark
                .sql(
                    "SELECT count(*) FROM retrievals a JOIN retrievals b USING (retriever, question_id)"
                        + " WHERE a.retriever = 'bm25' AND a.rank < b.rank AND a.score < b.score")
                .head()
                .getLong(0))
        .isZero();

    // Forced document scoping cannot serve FinanceBench questions (no doc_id): they are
    // quarantined, not widened.
    CliResult document =
        SparkTestSession.cli(
            "retrieve",
            "--warehouse",
            warehouse,
            "--benchmark",
            "financebench",
            "--max-questions",
            "2",
            "--retriever",
            "bm25",
            "--scoping",
            "document");
    assertThat(document.code()).as(document.toString()).isZero();
    assertThat(document.out()).contains("2 question(s) quarantined");
    Row quarantined =
        w.read("quarantine")
            .filter("job = 'retrieve'")
            .selectExpr("count(*)", "min(reason)")
            .head();
    assertThat(quarantined.getLong(0)).isEqualTo(2);
    assertThat(quarantined.getString(1))
        .isEqualTo("retrieve.scoping is document but the question has no doc_id");

    Row runs =
        w.read("runs")
            .filter("job IN ('index', 'retrieve')")
            .selectExpr(
                "sum(CASE WHEN status = 'succeeded' AND input_count = output_count + quarantined_count"
                    + " THEN 1 ELSE 0 END)",
                "sum(CASE WHEN status = 'failed' THEN 1 ELSE 0 END)")
            .head();
    assertThat(runs.getLong(0)).isEqualTo(6);
    assertThat(runs.getLong(1)).isEqualTo(1);
  }

  @Test
  void qualityQuestionsRetrieveOnlyFromTheirOwnArticleAndHaveNoRecallRow() {
    // The QuALITY sample ingested and chunked at 256 tokens (built once per test JVM, checked
    // there; a copy here).
    String warehouse = QualitySample.chunkedCopy(256, "retrieve-quality");
    // BM25 only: no embeddings are needed, and 4 chunks per shard spreads the articles over several
    // shards.
    CliResult index =
        SparkTestSession.cli(
            "index", "--warehouse", warehouse, "--no-dense", "--chunks-per-shard", "4");
    assertThat(index.code()).as(index.toString()).isZero();
    assertThat(new Warehouse(spark, warehouse).exists("chunk_embeddings")).isFalse();

    CliResult bm25 =
        SparkTestSession.cli(
            "retrieve",
            "--warehouse",
            warehouse,
            "--retriever",
            "bm25",
            "--k",
            "3",
            "--set",
            "retrieve.recall_ks=[1]");
    assertThat(bm25.code()).as(bm25.toString()).isZero();
    Warehouse w = new Warehouse(spark, warehouse);
    w.registerViews();
    long questions = w.read("questions").count();
    Row scoped =
        spark
            .sql(
                "SELECT count(DISTINCT r.question_id), sum(CASE WHEN r.doc_id = q.doc_id THEN 1 ELSE 0 END),"
                    + " count(*) FROM retrievals r JOIN questions q USING (question_id)")
            .head();
    assertThat(scoped.getLong(0)).isEqualTo(questions);
    assertThat(scoped.getLong(1)).isEqualTo(scoped.getLong(2)).isGreaterThan(questions);
    assertThat(w.exists("retrieval_recall")).isFalse();

    // Dense retrieval without embeddings says what to run.
    CliResult dense =
        SparkTestSession.cli("retrieve", "--warehouse", warehouse, "--retriever", "dense");
    assertThat(dense.code()).isEqualTo(1);
    assertThat(dense.err()).contains("have no current embedding for model all-minilm-l6-v2");
  }
}
