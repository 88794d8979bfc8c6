package dev.infuse.tests;

import static org.assertj.core.api.Assertions.assertThat;

import dev.infuse.jobs.SparkTestSession;
import dev.infuse.jobs.SparkTestSession.CliResult;
import dev.infuse.jobs.io.Warehouse;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;

/**
 * {@code infuse demo} end to end on the sample shipped in the repository, then again: nothing changes.
 * The rerun goes to the shared demo warehouse, which is fine because it must leave every table as it was.
 */
class DemoEndToEndTest {
  private final SparkSession spark = SparkTestSession.get();

  @Test
  void demoBuildsTheWarehouseAndARerunCommitsNothing() {
    // The shared demo warehouse: one demo run per test JVM, since the demo trains a model.
    String warehouse = DemoWarehouse.get();
    CliResult result = DemoWarehouse.firstRun();
    assertThat(result.out()).contains("== 1/15 ingest", "== 2/15 chunk", "== 3/15 embed", "== 4/15 gen-qa",
        "== 5/15 gen-docs", "== 6/15 build-shards", "== 7/15 train", "== 8/15 index", "== 9/15 retrieve",
        "== 10/15 ask the trained model", "model (djl, greedy):", "by log-likelihood: acc picks",
        "dense retrieval for it", "== 11/15 answer", "== 14/15 score", "== 15/15 report", "report.html", "Look at it:",
        "bin/infuse sql --warehouse");

    Warehouse w = new Warehouse(spark, warehouse);
    assertThat(w.tables()).containsExactly("chunk_embeddings", "chunks", "decontamination_hits", "documents", "llm_calls",
        "predictions", "quarantine", "questions", "retrievals", "runs", "score_comparisons", "scores",
        "shard_dedup_drops", "shard_manifest", "synthetic_docs", "synthetic_qa", "train_metrics");
    assertThat(w.read("documents").count()).isEqualTo(5);
    assertThat(w.read("questions").count()).isEqualTo(62);
    assertThat(w.read("chunks").filter("n_tokens > 1024 OR n_tokens < 1").count()).isZero();
    assertThat(w.read("chunks").select("doc_id").distinct().count()).isEqualTo(5);
    assertThat(w.read("runs").filter("status = 'succeeded'").count()).isEqualTo(14);
    // The model trained on the shards the demo built: three formats, reconciled, and a report over three settings.
    assertThat(w.read("shard_manifest").select("format").distinct().count()).isEqualTo(3);
    assertThat(w.read("shard_manifest").groupBy("format").sum("tokens").select("sum(tokens)").distinct().count())
        .as("every format holds the same tokens").isEqualTo(1);
    assertThat(java.nio.file.Path.of(warehouse, "shards", "demo", "COMPLETED")).isRegularFile();
    assertThat(w.read("predictions").select("setting").distinct().count()).isEqualTo(3);
    assertThat(w.read("scores").filter("metric = 'accuracy' AND subset = 'all'").count()).isEqualTo(3);
    assertThat(w.read("score_comparisons").count()).isEqualTo(1);
    assertThat(w.read("chunk_embeddings").count()).isEqualTo(w.read("chunks").count());
    assertThat(w.read("train_metrics").count()).isEqualTo(300);
    assertThat(java.nio.file.Path.of(warehouse, "models", "tiny", "model.safetensors")).isRegularFile();
    assertThat(w.read("synthetic_qa").count()).isPositive();
    assertThat(w.read("synthetic_docs").select("kind").distinct().count()).isEqualTo(3);
    assertThat(w.read("synthetic_docs").filter("kind = 'rephrase'").select("variant").distinct().count()).isEqualTo(4);
    assertThat(w.read("llm_calls").filter("status <> 'succeeded'").count()).isZero();

    long documents = w.version("documents");
    long questions = w.version("questions");
    long chunks = w.version("chunks");
    long calls = w.version("llm_calls");
    long qa = w.version("synthetic_qa");
    long docs = w.version("synthetic_docs");
    long embeddings = w.version("chunk_embeddings");
    long metrics = w.version("train_metrics");
    long manifest = w.version("shard_manifest");
    long retrievals = w.version("retrievals");
    CliResult again = SparkTestSession.cli("demo", "--warehouse", warehouse);
    assertThat(again.code()).as(again.toString()).isZero();
    assertThat(w.version("documents")).isEqualTo(documents);
    assertThat(w.version("questions")).isEqualTo(questions);
    assertThat(w.version("chunks")).isEqualTo(chunks);
    assertThat(w.version("llm_calls")).as("a rerun makes no call").isEqualTo(calls);
    assertThat(w.version("synthetic_qa")).isEqualTo(qa);
    assertThat(w.version("synthetic_docs")).isEqualTo(docs);
    assertThat(w.version("chunk_embeddings")).as("a rerun embeds nothing").isEqualTo(embeddings);
    assertThat(w.version("train_metrics")).as("a rerun resumes at the final step and trains nothing").isEqualTo(metrics);
    assertThat(w.version("shard_manifest")).as("the shards are up to date").isEqualTo(manifest);
    assertThat(w.version("retrievals")).as("the same retrievals").isEqualTo(retrievals);
    assertThat(again.out()).contains("resumed from step 300, finished at step 300");
    assertThat(again.out()).contains("is up to date");
    assertThat(again.out()).contains("0 called");
    assertThat(w.read("runs").count()).isEqualTo(28);
  }
}
