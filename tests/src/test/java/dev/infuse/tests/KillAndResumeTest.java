package dev.infuse.tests;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.infuse.jobs.SparkTestSession;
import dev.infuse.jobs.SparkTestSession.CliResult;
import dev.infuse.jobs.io.Warehouse;
import dev.infuse.udfs.llm.FakeOpenAiServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * gen-qa killed with SIGKILL in the middle of its calls, then run again: it completes, with no
 * duplicate rows, and no response that had come back (and been journaled) before the kill is asked
 * for again.
 */
@Tag("production")
class KillAndResumeTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private final SparkSession spark = SparkTestSession.get();

  @Test
  void aKilledRunResumesWithoutRepeatingFinishedCalls() throws Exception {
    String warehouse = SparkTestSession.tempDir("kill").toString();
    assertThat(
            SparkTestSession.cli(
                    "ingest",
                    "--format",
                    "quality",
                    "--input",
                    SparkTestSession.repoRoot()
                        .resolve("samples/quality/quality_dev_sample.jsonl")
                        .toString(),
                    "--warehouse",
                    warehouse)
                .code())
        .isZero();
    assertThat(
            SparkTestSession.cli("chunk", "--warehouse", warehouse, "--max-tokens", "128").code())
        .isZero();
    long units = new Warehouse(spark, warehouse).read("chunks").count();

    try (FakeOpenAiServer server = new FakeOpenAiServer()) {
      server.setLatencyMillis(150);
      server.setResponder(
          request ->
              "[{\"question\": \"What does this passage say?\", \"answer\": \"It tells a story.\"}]");
      List<String> settings =
          List.of(
              "--warehouse",
              warehouse,
              "--set",
              "llm.backend=openai",
              "--set",
              "llm.base_url=" + server.baseUrl(),
              "--set",
              "llm.model=fake-1",
              "--set",
              "llm.max_concurrency=4",
              "--set",
              "llm.rows_per_task=16",
              "--set",
              "gen_qa.pairs_per_unit=1");

      List<String> command =
          new ArrayList<>(
              List.of(SparkTestSession.repoRoot().resolve("bin/infuse").toString(), "gen-qa"));
      command.addAll(settings);
      ProcessBuilder builder =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.DISCARD);
      builder.environment().put("INFUSE_JAVA_OPTS", "-Xmx1g");
      Process first = builder.start();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
      while (server.totalRequests() < units / 3
          && first.isAlive()
          && System.nanoTime() < deadline) {
        Thread.sleep(50);
      }
      assertThat(first.isAlive())
          .as("the first run must still be calling when it is killed")
          .isTrue();
      first.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
      int sentBeforeKill = server.totalRequests();
      assertThat(sentBeforeKill).isLessThan((int) units);

      Set<String> journaled = journaledUserMessages(Path.of(warehouse, "_journal", "llm_calls"));
      assertThat(journaled).as("responses journaled before the kill").isNotEmpty();

      CliResult resumed =
          SparkTestSession.cli(
              Stream.concat(Stream.of("gen-qa"), settings.stream()).toArray(String[]::new));
      assertThat(resumed.code()).as(resumed.toString()).isZero();
      assertThat(resumed.err()).contains("recovered");

      System.out.printf(
          "kill-and-resume: %d units, %d requests before SIGKILL, %d journaled successes, %d requests in all%n",
          units, sentBeforeKill, journaled.size(), server.totalRequests());
      for (String message : journaled) {
        assertThat(server.requestsFor(message))
            .as("requests for a call journaled before the kill")
            .isEqualTo(1);
      }
      // Exactly the units without a journaled success were asked for again: those never sent, and
      // those whose
      // answer was in flight or not yet journaled when the JVM died.
      assertThat(server.totalRequests()).isEqualTo(sentBeforeKill + (int) units - journaled.size());
      Warehouse w = new Warehouse(spark, warehouse);
      assertThat(w.read("llm_calls").filter("status = 'succeeded'").count()).isEqualTo(units);
      assertThat(w.read("synthetic_qa").count()).isEqualTo(units);
      assertThat(w.read("synthetic_qa").select("qa_id").distinct().count()).isEqualTo(units);
      assertThat(
              Files.exists(Path.of(warehouse, "_journal", "llm_calls"))
                  && Files.list(Path.of(warehouse, "_journal", "llm_calls")).findAny().isPresent())
          .isFalse();
    }
  }

  /** The last user message of every succeeded call in the journal files. */
  private static Set<String> journaledUserMessages(Path journal) throws Exception {
    Set<String> messages = new HashSet<>();
    for (String request : KilledRunJournal.succeededRequests(journal)) {
      JsonNode messagesNode = JSON.readTree(request).get("messages");
      messages.add(messagesNode.get(messagesNode.size() - 1).get("content").asText());
    }
    return messages;
  }
}
