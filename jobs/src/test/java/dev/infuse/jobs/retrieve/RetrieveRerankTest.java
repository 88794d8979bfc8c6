package dev.infuse.jobs.retrieve;

import static org.assertj.core.api.Assertions.assertThat;

import dev.infuse.jobs.QualitySample;
import dev.infuse.jobs.SparkTestSession;
import dev.infuse.jobs.SparkTestSession.CliResult;
import dev.infuse.jobs.generate.PromptLibrary;
import dev.infuse.jobs.io.Warehouse;
import dev.infuse.udfs.model.ExecutorModels;
import dev.infuse.udfs.retrieve.CrossEncoder;
import dev.infuse.udfs.retrieve.CrossEncoderSpec;
import dev.infuse.udfs.retrieve.QueryTemplate;
import dev.infuse.udfs.retrieve.Reranking;
import dev.infuse.udfs.retrieve.ScoredChunk;
import dev.infuse.udfs.retrieve.TinyCrossEncoder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;

/**
 * retrieve on the QuALITY sample: the scope each question searched, the query template and the
 * cross-encoder stage, recorded on every row and in the run.
 */
class RetrieveRerankTest {
  private final SparkSession spark = SparkTestSession.get();

  @Test
  void qualitySearchesTheWholeCorpusWithEntiGraphsQueryAndACrossEncoderReranks() throws Exception {
    String warehouse = QualitySample.chunkedCopy(256, "retrieve-rerank");
    CliResult index =
        SparkTestSession.cli(
            "index", "--warehouse", warehouse, "--no-dense", "--chunks-per-shard", "8");
    assertThat(index.code()).as(index.toString()).isZero();
    Warehouse w = new Warehouse(spark, warehouse);

    // auto: every QuALITY question has its document, so it searches only that (the oracle).
    CliResult auto = retrieve(warehouse, "--k", "8", "--max-questions", "4");
    assertThat(auto.out())
        .contains(
            "query template query/question@v1; scope: 4 question(s) searched their own"
                + " document (oracle document), 0 their whole corpus")
        .contains("no reranker (retrieve.rerank is null): ranks are the first stage's");
    w.registerViews();
    Row oracle =
        spark
            .sql(
                "SELECT count(*), sum(CASE WHEN r.doc_id = q.doc_id AND scope = 'document'"
                    + " AND query_template = 'query/question@v1' AND reranker IS NULL"
                    + " AND first_stage_rank = rank AND first_stage_score = score"
                    + " THEN 1 ELSE 0 END) FROM retrievals r JOIN questions q USING (question_id)")
            .head();
    assertThat(oracle.getLong(0)).isEqualTo(32);
    assertThat(oracle.getLong(1)).isEqualTo(32);
    assertThat(scopeCounts(w)).containsExactly(4L, 0L);

    // corpus with EntiGraph's query: one search over the whole QuALITY corpus.
    CliResult corpus =
        retrieve(
            warehouse,
            "--k",
            "8",
            "--max-questions",
            "4",
            "--scoping",
            "corpus",
            "--query-template",
            "query/entigraph");
    assertThat(corpus.out())
        .contains(
            "query template query/entigraph@v1; scope: 0 question(s) searched their own"
                + " document (oracle document), 4 their whole corpus");
    assertThat(scopeCounts(w)).containsExactly(0L, 4L);
    w.registerViews();
    Row rows =
        spark
            .sql(
                "SELECT count(*), sum(CASE WHEN scope = 'corpus' AND query_template ="
                    + " 'query/entigraph@v1' THEN 1 ELSE 0 END), sum(CASE WHEN r.doc_id <> q.doc_id"
                    + " THEN 1 ELSE 0 END) FROM retrievals r JOIN questions q USING (question_id)")
            .head();
    assertThat(rows.getLong(0)).isEqualTo(32);
    assertThat(rows.getLong(1)).isEqualTo(32);
    assertThat(rows.getLong(2)).as("chunks of other articles").isGreaterThan(0);
    Map<String, List<ScoredChunk>> firstStage = new HashMap<>();
    for (Row row :
        spark
            .sql(
                "SELECT question_id, chunk_id, doc_id, score FROM retrievals ORDER BY question_id, rank")
            .collectAsList()) {
      firstStage
          .computeIfAbsent(row.getString(0), q -> new ArrayList<>())
          .add(new ScoredChunk(row.getString(1), row.getString(2), row.getDouble(3)));
    }

    // The cross-encoder scores the 8 first-stage chunks against the same query and keeps 3.
    Path model =
        TinyCrossEncoder.write(SparkTestSession.tempDir("tiny-ce").resolve("tiny-ce"), 512);
    CliResult reranked =
        retrieve(
            warehouse,
            "--max-questions",
            "4",
            "--scoping",
            "corpus",
            "--query-template",
            "query/entigraph",
            "--rerank",
            model.toString(),
            "--set",
            "retrieve.rerank_depth=8",
            "--set",
            "retrieve.rerank_top_k=3",
            "--set",
            "retrieve.rerank_device=cpu");
    assertThat(reranked.out())
        .contains("retrieve: 4 question(s) with bm25, k 8")
        .containsPattern(
            "reranked by cross-encoder tiny-ce@[0-9a-f]{12}: the top 3 of 8"
                + " first-stage chunks kept");
    w.registerViews();
    CrossEncoderSpec spec = new CrossEncoderSpec(model.toString(), "cpu", 4, 0);
    QueryTemplate template =
        QueryTemplate.of(
            PromptLibrary.load(
                    new Configuration(),
                    Path.of("..", "conf", "prompts").toAbsolutePath().toString())
                .get("query/entigraph"));
    Map<String, String> texts = new HashMap<>();
    for (Row row : spark.sql("SELECT chunk_id, text FROM chunks").collectAsList()) {
      texts.put(row.getString(0), row.getString(1));
    }
    List<Row> questions =
        spark
            .sql(
                "SELECT q.question_id, q.question, d.title, d.meta['author'], d.meta['year'],"
                    + " q.options FROM questions q JOIN documents d USING (doc_id)"
                    + " WHERE q.question_id IN (SELECT question_id FROM retrievals)")
            .collectAsList();
    assertThat(questions).hasSize(4);
    try {
      CrossEncoder encoder = ExecutorModels.get(spec);
      int moved = 0;
      for (Row q : questions) {
        String query =
            template.render(
                new QueryTemplate.Fields(
                    q.getString(1), q.getString(2), q.getString(3), q.getString(4), q.getList(5)));
        List<ScoredChunk> candidates = firstStage.get(q.getString(0));
        float[] scores =
            encoder.score(query, candidates.stream().map(c -> texts.get(c.chunkId())).toList());
        List<Reranking.Reranked> expected = Reranking.rerank(candidates, scores, 3);
        List<Row> actual =
            spark
                .sql(
                    "SELECT rank, chunk_id, score, first_stage_rank, first_stage_score, reranker"
                        + " FROM retrievals WHERE question_id = '"
                        + q.getString(0)
                        + "' ORDER BY rank")
                .collectAsList();
        assertThat(actual).as(q.getString(0)).hasSize(3);
        for (int i = 0; i < 3; i++) {
          Row row = actual.get(i);
          assertThat(row.getInt(0)).isEqualTo(i + 1);
          assertThat(row.getString(1)).isEqualTo(expected.get(i).chunk().chunkId());
          assertThat(row.getDouble(2)).isEqualTo(expected.get(i).rerankScore());
          assertThat(row.getInt(3)).isEqualTo(expected.get(i).firstStageRank());
          assertThat(row.getDouble(4)).isEqualTo(expected.get(i).firstStageScore());
          assertThat(row.getString(5)).matches("tiny-ce@[0-9a-f]{12}");
          moved += row.getInt(3) == i + 1 ? 0 : 1;
        }
      }
      assertThat(moved).as("ranks the reranker changed").isGreaterThan(0);
    } finally {
      ExecutorModels.evict(spec.cacheKey());
    }
    // Ranks 4..8 of the first stage are no longer filled: deleted.
    assertThat(w.read("retrievals").count()).isEqualTo(12);
    Row run =
        w.read("runs")
            .filter("job = 'retrieve'")
            .orderBy(org.apache.spark.sql.functions.col("started_at").desc())
            .selectExpr("counts['reranked']", "counts['scope.corpus']")
            .head();
    assertThat(run.getLong(0)).isEqualTo(4);
    assertThat(run.getLong(1)).isEqualTo(4);
  }

  private static CliResult retrieve(String warehouse, String... args) {
    List<String> all =
        new ArrayList<>(List.of("retrieve", "--warehouse", warehouse, "--retriever", "bm25"));
    all.addAll(List.of(args));
    CliResult result = SparkTestSession.cli(all.toArray(String[]::new));
    assertThat(result.code()).as(result.toString()).isZero();
    return result;
  }

  /** The last retrieve run's question counts: (scope.document, scope.corpus). */
  private List<Long> scopeCounts(Warehouse w) {
    Row run =
        w.read("runs")
            .filter("job = 'retrieve'")
            .orderBy(org.apache.spark.sql.functions.col("started_at").desc())
            .selectExpr("counts['scope.document']", "counts['scope.corpus']")
            .head();
    return List.of(run.getLong(0), run.getLong(1));
  }
}
