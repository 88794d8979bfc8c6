package dev.infuse.tests;

import static org.assertj.core.api.Assertions.assertThat;

import dev.infuse.jobs.SparkTestSession;
import dev.infuse.jobs.SparkTestSession.CliResult;
import dev.infuse.jobs.io.Warehouse;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;

/** {@code infuse demo} end to end on the sample shipped in the repository, then again: nothing changes. */
class DemoEndToEndTest {
  private final SparkSession spark = SparkTestSession.get();

  @Test
  void demoBuildsTheWarehouseAndARerunCommitsNothing() {
    String warehouse = SparkTestSession.tempDir("demo").toString();
    CliResult result = SparkTestSession.cli("demo", "--warehouse", warehouse);
    assertThat(result.code()).as(result.toString()).isZero();
    assertThat(result.out()).contains("== 1/4 ingest", "== 2/4 chunk", "== 3/4 gen-qa", "== 4/4 gen-docs", "Look at it:",
        "bin/infuse sql --warehouse");

    Warehouse w = new Warehouse(spark, warehouse);
    assertThat(w.tables()).containsExactly("chunks", "documents", "llm_calls", "quarantine", "questions", "runs",
        "synthetic_docs", "synthetic_qa");
    assertThat(w.read("documents").count()).isEqualTo(5);
    assertThat(w.read("questions").count()).isEqualTo(62);
    assertThat(w.read("chunks").filter("n_tokens > 1024 OR n_tokens < 1").count()).isZero();
    assertThat(w.read("chunks").select("doc_id").distinct().count()).isEqualTo(5);
    assertThat(w.read("runs").filter("status = 'succeeded'").count()).isEqualTo(4);
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
    CliResult again = SparkTestSession.cli("demo", "--warehouse", warehouse);
    assertThat(again.code()).as(again.toString()).isZero();
    assertThat(w.version("documents")).isEqualTo(documents);
    assertThat(w.version("questions")).isEqualTo(questions);
    assertThat(w.version("chunks")).isEqualTo(chunks);
    assertThat(w.version("llm_calls")).as("a rerun makes no call").isEqualTo(calls);
    assertThat(w.version("synthetic_qa")).isEqualTo(qa);
    assertThat(w.version("synthetic_docs")).isEqualTo(docs);
    assertThat(again.out()).contains("0 called");
    assertThat(w.read("runs").count()).isEqualTo(8);
  }
}
