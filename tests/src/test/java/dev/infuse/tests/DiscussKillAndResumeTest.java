package dev.infuse.tests;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.struct;
import static org.apache.spark.sql.functions.to_json;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.infuse.jobs.SparkTestSession;
import dev.infuse.jobs.SparkTestSession.CliResult;
import dev.infuse.jobs.io.Warehouse;
import dev.infuse.udfs.llm.FakeOpenAiServer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * MAPoRL's {@code discuss} killed with SIGKILL in the middle of its turns, then run again: its
 * rollouts equal those of a run that was never interrupted, and no call whose answer came back (and
 * was journaled) before the kill is asked for again.
 */
@Tag("production")
class DiscussKillAndResumeTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int QUESTIONS = 8;
  private static final int AGENTS = 2;
  private static final int TURNS = 3;
  private final SparkSession spark = SparkTestSession.get();

  @Test
  void aKilledDiscussionResumesToTheUninterruptedRollouts() throws Exception {
    String killed = gsm8kWarehouse("discuss-killed");
    String uninterrupted = gsm8kWarehouse("discuss-uninterrupted");
    int calls = QUESTIONS * AGENTS * TURNS;

    try (FakeOpenAiServer server = new FakeOpenAiServer()) {
      // An answer that depends on the whole prompt, so each turn's answers depend on the last's.
      server.setResponder(
          request ->
              String.format(
                  Locale.ROOT,
                  "Adding it up step by step. Answer: \\boxed{%d}",
                  Math.floorMod(request.get("messages").toString().hashCode(), 40)));
      CliResult reference = SparkTestSession.cli(discuss(uninterrupted, server));
      assertThat(reference.code()).as(reference.toString()).isZero();
      Map<String, Integer> before = new HashMap<>();

      server.setLatencyMillis(300);
      int sentBefore = server.totalRequests();
      List<String> command =
          new ArrayList<>(List.of(SparkTestSession.repoRoot().resolve("bin/infuse").toString()));
      command.addAll(List.of(discuss(killed, server)));
      ProcessBuilder builder =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.DISCARD);
      builder
          .environment()
          .put("INFUSE_JAVA_OPTS", "-Xmx1g " + SparkTestSession.FAST_SMALL_JOBS_JAVA_OPTS);
      Process first = builder.start();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
      // Past the first turn: some turn-1 calls, which quote turn 0's answers, have been made.
      while (server.totalRequests() - sentBefore < calls / 2
          && first.isAlive()
          && System.nanoTime() < deadline) {
        Thread.sleep(20);
      }
      assertThat(first.isAlive()).as("discuss must still be calling when it is killed").isTrue();
      first.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
      int sentBeforeKill = server.totalRequests() - sentBefore;
      List<String> journaled =
          KilledRunJournal.succeededRequests(Path.of(killed, "_journal", "llm_calls"));
      assertThat(journaled).as("answers journaled before the kill").isNotEmpty();
      // By messages and seed: both agents send the same first-turn prompt, each with its own
      // seed, so a message alone does not name one call.
      Map<String, Integer> byCall = requestsByCall(server);
      for (String request : journaled) {
        JsonNode canonical = JSON.readTree(request);
        String call = callOf(canonical.get("messages"), canonical.path("params").get("seed"));
        assertThat(byCall.containsKey(call)).as("a journaled request the server received").isTrue();
        before.put(call, byCall.get(call));
      }

      server.setLatencyMillis(0);
      CliResult resumed = SparkTestSession.cli(discuss(killed, server));
      assertThat(resumed.code()).as(resumed.toString()).isZero();
      System.out.printf(
          "discuss kill-and-resume: %d calls, %d requests before SIGKILL, %d journaled, %d after%n",
          calls, sentBeforeKill, journaled.size(), server.totalRequests() - sentBefore);
      Map<String, Integer> afterResume = requestsByCall(server);
      before.forEach(
          (hash, count) ->
              assertThat(afterResume.get(hash))
                  .as("requests for a call journaled before the kill")
                  .isEqualTo(count));

      Dataset<Row> resumedRollouts = rollouts(killed);
      Dataset<Row> referenceRollouts = rollouts(uninterrupted);
      assertThat(resumedRollouts.count()).isEqualTo(calls);
      assertThat(
              new Warehouse(spark, killed)
                  .read("rollouts")
                  .select("episode_id", "agent_id", "turn")
                  .distinct()
                  .count())
          .isEqualTo(calls);
      assertThat(resumedRollouts.exceptAll(referenceRollouts).count()).isZero();
      assertThat(referenceRollouts.exceptAll(resumedRollouts).count()).isZero();
      assertThat(
              new Warehouse(spark, killed).read("llm_calls").filter("status = 'succeeded'").count())
          .isEqualTo(calls);
    }
  }

  private String gsm8kWarehouse(String prefix) {
    String warehouse = SparkTestSession.tempDir(prefix).toString();
    CliResult ingest =
        SparkTestSession.cli(
            "ingest",
            "--format",
            "gsm8k",
            "--input",
            SparkTestSession.repoRoot()
                .resolve("samples/gsm8k/gsm8k_train_sample.jsonl")
                .toString(),
            "--warehouse",
            warehouse);
    assertThat(ingest.code()).as(ingest.toString()).isZero();
    assertThat(new Warehouse(spark, warehouse).read("questions").count()).isEqualTo(QUESTIONS);
    return warehouse;
  }

  private static String[] discuss(String warehouse, FakeOpenAiServer server) {
    return Stream.of(
            "discuss",
            "--warehouse",
            warehouse,
            "--set",
            "llm.backend=openai",
            "--set",
            "llm.base_url=" + server.baseUrl(),
            "--set",
            "llm.model=fake-1",
            "--set",
            "llm.max_concurrency=2",
            "--set",
            "llm.rows_per_task=4")
        .toArray(String[]::new);
  }

  /** The rollouts as JSON rows, without the run's id, which differs between runs by design. */
  private Dataset<Row> rollouts(String warehouse) {
    Dataset<Row> rows = new Warehouse(spark, warehouse).read("rollouts").drop("run_id");
    return rows.select(
        to_json(struct(Stream.of(rows.columns()).map(c -> col(c)).toArray(Column[]::new))));
  }

  /** Requests the server received, by the call they make (messages and seed). */
  private static Map<String, Integer> requestsByCall(FakeOpenAiServer server) {
    Map<String, Integer> counts = new HashMap<>();
    for (FakeOpenAiServer.Received received : server.received()) {
      if (received.json() != null) {
        counts.merge(
            callOf(received.json().get("messages"), received.json().get("seed")), 1, Integer::sum);
      }
    }
    return counts;
  }

  /** Role and content of each message, and the seed: the same for the wire and the journal. */
  private static String callOf(JsonNode messages, JsonNode seed) {
    StringBuilder call = new StringBuilder();
    for (JsonNode message : messages) {
      call.append(message.get("role").asText())
          .append(": ")
          .append(message.get("content").asText());
      call.append('\n');
    }
    return call.append("seed ")
        .append(seed == null || seed.isNull() ? "none" : seed.asText())
        .toString();
  }
}
