package dev.infuse.jobs.generate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.infuse.jobs.QualitySample;
import dev.infuse.jobs.SparkTestSession;
import dev.infuse.jobs.SparkTestSession.CliResult;
import dev.infuse.jobs.io.Warehouse;
import dev.infuse.udfs.llm.FakeOpenAiServer;
import java.util.List;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;

/**
 * gen-qa and gen-docs end to end: with the model-free extractive backend (the default), and pointed
 * at a real OpenAI-compatible HTTP server on loopback by config alone.
 */
class GenerationJobsTest {
  private static final SparkSession SPARK = SparkTestSession.get();

  @Test
  void extractiveQaAndAllDocumentKindsLandWithTheirProvenance() {
    String warehouse = chunkedCopy();
    CliResult qa =
        SparkTestSession.cli(
            "gen-qa", "--warehouse", warehouse, "--set", "gen_qa.max_units=6", "--pairs", "3");
    assertThat(qa.code()).as(qa.toString()).isZero();
    Warehouse w = new Warehouse(SPARK, warehouse);
    assertThat(w.read("synthetic_qa").count()).isBetween(6L, 18L);
    Row pair = w.read("synthetic_qa").head();
    assertThat(pair.<String>getAs("generator")).isEqualTo("extractive:extractive-v1");
    assertThat(pair.<String>getAs("template_id")).isEqualTo("gen-qa");
    // Extractive answers are spans of their chunk.
    w.registerViews();
    assertThat(
            SPARK
                .sql(
                    "SELECT * FROM synthetic_qa q JOIN chunks c ON c.chunk_id = q.chunk_id"
                        + " WHERE instr(c.text, q.answer) = 0")
                .count())
        .isZero();

    CliResult docs =
        SparkTestSession.cli("gen-docs", "--warehouse", warehouse, "--set", "gen_docs.max_docs=2");
    assertThat(docs.code()).as(docs.toString()).isZero();
    List<String> kinds =
        w.read("synthetic_docs")
            .select("kind")
            .distinct()
            .as(org.apache.spark.sql.Encoders.STRING())
            .collectAsList();
    assertThat(kinds).containsExactlyInAnyOrder("rephrase", "entity", "focal");
    assertThat(
            w.read("synthetic_docs")
                .filter("kind = 'rephrase'")
                .select("variant")
                .distinct()
                .count())
        .isEqualTo(4);
    assertThat(
            w.read("synthetic_docs").filter("kind = 'entity'").select("variant").distinct().count())
        .isGreaterThanOrEqualTo(2);
    // Focal documents are conditioned on real synthetic_qa rows.
    w.registerViews();
    assertThat(
            SPARK
                .sql(
                    "SELECT id FROM synthetic_docs LATERAL VIEW explode(conditioning_ids) AS id"
                        + " WHERE kind = 'focal' AND id NOT IN (SELECT qa_id FROM synthetic_qa)")
                .count())
        .isZero();
    assertThat(w.read("synthetic_docs").filter("n_tokens <= 0").count()).isZero();
  }

  @Test
  void theSameJobsRunAgainstAnOpenAiCompatibleServerByConfigAlone() throws Exception {
    String warehouse = chunkedCopy();
    try (FakeOpenAiServer server = new FakeOpenAiServer()) {
      server.setResponder(
          request -> "[{\"question\": \"What happens?\", \"answer\": \"Something.\"}]");
      String[] llm = {
        "--set",
        "llm.backend=openai",
        "--set",
        "llm.base_url=" + server.baseUrl(),
        "--set",
        "llm.model=fake-1",
        "--set",
        "llm.max_concurrency=4",
        "--set",
        "llm.initial_backoff_millis=10"
      };
      CliResult qa =
          SparkTestSession.cli(
              concat(
                  new String[] {"gen-qa", "--warehouse", warehouse, "--set", "gen_qa.max_units=5"},
                  llm));
      assertThat(qa.code()).as(qa.toString()).isZero();
      assertThat(server.totalRequests()).isEqualTo(5);
      Warehouse w = new Warehouse(SPARK, warehouse);
      assertThat(w.read("synthetic_qa").filter("generator = 'openai:fake-1'").count()).isEqualTo(5);
      assertThat(w.read("llm_calls").filter("status = 'succeeded'").count()).isEqualTo(5);

      // A rerun sends nothing for keys that already succeeded.
      CliResult again =
          SparkTestSession.cli(
              concat(
                  new String[] {"gen-qa", "--warehouse", warehouse, "--set", "gen_qa.max_units=5"},
                  llm));
      assertThat(again.code()).as(again.toString()).isZero();
      assertThat(server.totalRequests()).isEqualTo(5);
      assertThat(again.out()).contains("5 cached, 0 called");
    }
  }

  @Test
  void failedCallsAreRecordedQuarantinedAndRetriedOnTheNextRun() throws Exception {
    String warehouse = chunkedCopy();
    try (FakeOpenAiServer server = new FakeOpenAiServer()) {
      server.setResponder(request -> "not json at all");
      String[] args = {
        "gen-qa",
        "--warehouse",
        warehouse,
        "--set",
        "gen_qa.max_units=4",
        "--set",
        "llm.backend=openai",
        "--set",
        "llm.base_url=" + server.baseUrl(),
        "--set",
        "llm.model=fake-1",
        "--set",
        "llm.max_attempts=1",
        "--set",
        "llm.max_failure_fraction=1"
      };
      server.faults().failWhen(request -> true, FakeOpenAiServer.Fault.SERVER_ERROR);
      CliResult failing = SparkTestSession.cli(args);
      assertThat(failing.code()).as(failing.toString()).isZero();
      Warehouse w = new Warehouse(SPARK, warehouse);
      assertThat(w.read("llm_calls").filter("status = 'failed' AND error IS NOT NULL").count())
          .isEqualTo(4);
      assertThat(
              w.read("quarantine")
                  .filter("job = 'gen-qa' AND reason LIKE 'llm call failed%'")
                  .count())
          .isEqualTo(4);
      Row run = w.read("runs").filter("job = 'gen-qa'").head();
      assertThat(run.<Long>getAs("input_count"))
          .isEqualTo(run.<Long>getAs("output_count") + run.<Long>getAs("quarantined_count"));

      server.faults().clear();
      long before = server.totalRequests();
      CliResult recovered = SparkTestSession.cli(args);
      assertThat(recovered.code()).as(recovered.toString()).isZero();
      assertThat(server.totalRequests() - before).isEqualTo(4);
      assertThat(w.read("llm_calls").filter("status = 'succeeded'").count()).isEqualTo(4);
      // The responses are not JSON: each is kept, raw, in quarantine with the parser's reason.
      assertThat(
              w.read("quarantine")
                  .filter(
                      "job = 'gen-qa' AND reason LIKE 'gen-qa output:%' AND payload = 'not json at all'")
                  .count())
          .isEqualTo(4);
    }
  }

  @Test
  void aTokenBudgetStopsCleanlyKeepsTheWorkAndTheNextRunFinishes() throws Exception {
    String warehouse = chunkedCopy();
    try (FakeOpenAiServer server = new FakeOpenAiServer()) {
      server.setResponder(request -> "[{\"question\": \"Q?\", \"answer\": \"A.\"}]");
      String[] args = {
        "gen-qa",
        "--warehouse",
        warehouse,
        "--set",
        "gen_qa.max_units=6",
        "--set",
        "llm.backend=openai",
        "--set",
        "llm.base_url=" + server.baseUrl(),
        "--set",
        "llm.model=fake-1",
        "--set",
        "llm.max_concurrency=2",
        "--config",
        budgetConfig().toString()
      };
      CliResult capped = SparkTestSession.cli(args);
      assertThat(capped.code()).as(capped.toString()).isZero();
      assertThat(capped.err()).contains("llm.max_total_tokens 1 reached");
      assertThat(server.totalRequests()).isEqualTo(2);
      Warehouse w = new Warehouse(SPARK, warehouse);
      assertThat(w.read("synthetic_qa").count()).isEqualTo(2);
      Row run = w.read("runs").filter("job = 'gen-qa'").head();
      scala.collection.Map<String, Long> counts = run.getAs("counts");
      assertThat(counts.get("llm.deferred_by_budget").get()).isEqualTo(4L);
      assertThat(counts.get("llm.cost_usd_micros").get()).isPositive();

      CliResult rest = SparkTestSession.cli(java.util.Arrays.copyOf(args, args.length - 2));
      assertThat(rest.code()).as(rest.toString()).isZero();
      assertThat(server.totalRequests()).isEqualTo(6);
      assertThat(w.read("synthetic_qa").count()).isEqualTo(6);
    }
  }

  private static java.nio.file.Path budgetConfig() throws java.io.IOException {
    java.nio.file.Path file = SparkTestSession.tempDir("budget").resolve("budget.yaml");
    java.nio.file.Files.writeString(
        file,
        "llm:\n  max_total_tokens: 1\n  prices:\n    fake-1: {input_per_million: 5.0,"
            + " output_per_million: 15.0}\n");
    return file;
  }

  private static String[] concat(String[] a, String[] b) {
    String[] all = java.util.Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, all, a.length, b.length);
    return all;
  }

  /**
   * A private copy of the QuALITY sample ingested and chunked at 512 tokens (built once per test
   * JVM), so tests do not see each other's calls.
   */
  private static String chunkedCopy() {
    return QualitySample.chunkedCopy(512, "gen-copy");
  }
}
