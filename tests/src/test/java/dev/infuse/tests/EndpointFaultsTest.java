package dev.infuse.tests;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.infuse.jobs.SparkTestSession;
import dev.infuse.jobs.SparkTestSession.CliResult;
import dev.infuse.jobs.io.Warehouse;
import dev.infuse.udfs.llm.FakeOpenAiServer;
import dev.infuse.udfs.llm.FakeOpenAiServer.Fault;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * gen-qa against an endpoint where a fifth of the requests fail, as real servers do: 429 with
 * Retry-After, 500, no answer until the client's timeout, and a 200 whose body is not JSON. With
 * two attempts per request, no row is lost: each ends as a success or as a failure recorded in
 * {@code llm_calls} with its error. A second run against the mended endpoint asks again for exactly
 * the failures, never for a call that had succeeded, and completes them.
 */
@Tag("production")
class EndpointFaultsTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private final SparkSession spark = SparkTestSession.get();

  @Test
  void aFifthOfRequestsFailingLosesNoRowAndASecondRunCompletesTheFailures() throws Exception {
    String warehouse = SparkTestSession.tempDir("endpoint-faults").toString();
    CliResult ingest =
        SparkTestSession.cli(
            "ingest",
            "--format",
            "quality",
            "--input",
            SparkTestSession.repoRoot()
                .resolve("samples/quality/quality_dev_sample.jsonl")
                .toString(),
            "--warehouse",
            warehouse);
    assertThat(ingest.code()).as(ingest.toString()).isZero();
    CliResult chunk =
        SparkTestSession.cli("chunk", "--warehouse", warehouse, "--max-tokens", "128");
    assertThat(chunk.code()).as(chunk.toString()).isZero();
    Warehouse w = new Warehouse(spark, warehouse);
    long units = w.read("chunks").count();

    try (FakeOpenAiServer server = new FakeOpenAiServer()) {
      server.setResponder(
          request -> "[{\"question\": \"What happens here?\", \"answer\": \"Something does.\"}]");
      server.setFaultRate(
          0.2, 20261206L, Fault.RATE_LIMIT, Fault.SERVER_ERROR, Fault.HANG, Fault.INVALID_JSON);
      String[] genQa =
          Stream.of(
                  "gen-qa",
                  "--warehouse",
                  warehouse,
                  "--set",
                  "llm.backend=openai",
                  "--set",
                  "llm.base_url=" + server.baseUrl(),
                  "--set",
                  "llm.model=fake-1",
                  "--set",
                  "llm.max_concurrency=8",
                  "--set",
                  "llm.rows_per_task=64",
                  "--set",
                  "llm.request_timeout_seconds=2",
                  "--set",
                  "llm.max_attempts=2",
                  "--set",
                  "llm.initial_backoff_millis=20",
                  "--set",
                  "llm.max_backoff_millis=200",
                  // Some rows fail for good here by design; the run must still save and end.
                  "--set",
                  "llm.max_failure_fraction=0.5",
                  "--set",
                  "gen_qa.pairs_per_unit=1")
              .toArray(String[]::new);

      CliResult first = SparkTestSession.cli(genQa);
      assertThat(first.code()).as(first.toString()).isZero();
      List<Row> calls = w.read("llm_calls").collectAsList();
      long succeeded = calls.stream().filter(r -> "succeeded".equals(r.getAs("status"))).count();
      List<Row> failed = calls.stream().filter(r -> "failed".equals(r.getAs("status"))).toList();
      int requestsFirstRun = server.totalRequests();
      System.out.printf(
          "endpoint faults: %d units, %d requests, %d succeeded, %d failed for good: %s%n",
          units,
          requestsFirstRun,
          succeeded,
          failed.size(),
          failed.stream().map(r -> r.<String>getAs("error")).distinct().limit(4).toList());
      // No row lost: each unit's call is in llm_calls once, as a success or a recorded failure.
      assertThat(calls).hasSize((int) units);
      assertThat(calls.stream().map(r -> r.<String>getAs("call_key")).distinct().count())
          .isEqualTo(units);
      assertThat(failed).as("rows that failed both attempts").isNotEmpty();
      assertThat(failed).allSatisfy(r -> assertThat(r.<String>getAs("error")).isNotBlank());
      assertThat(succeeded).isGreaterThan(units / 2);
      assertThat(w.read("synthetic_qa").count()).isEqualTo(succeeded);
      // Some requests were retried: more requests than units.
      assertThat(requestsFirstRun).isGreaterThan((int) units);

      Map<String, Integer> askedForSuccesses = new HashMap<>();
      for (Row call : calls) {
        if ("succeeded".equals(call.getAs("status"))) {
          String message = lastUserMessage(call.getAs("request"));
          askedForSuccesses.put(message, server.requestsFor(message));
        }
      }

      server.faults().clear();
      CliResult second = SparkTestSession.cli(genQa);
      assertThat(second.code()).as(second.toString()).isZero();
      assertThat(server.totalRequests() - requestsFirstRun)
          .as("requests of the second run: one per failure")
          .isEqualTo(failed.size());
      askedForSuccesses.forEach(
          (message, before) ->
              assertThat(server.requestsFor(message))
                  .as("requests for a call that had succeeded")
                  .isEqualTo(before));
      assertThat(w.read("llm_calls").filter("status = 'succeeded'").count()).isEqualTo(units);
      assertThat(w.read("llm_calls").count()).isEqualTo(units);
      assertThat(w.read("synthetic_qa").count()).isEqualTo(units);
      assertThat(w.read("synthetic_qa").select("qa_id").distinct().count()).isEqualTo(units);
    }
  }

  private static String lastUserMessage(String requestJson) throws Exception {
    JsonNode messages = JSON.readTree(requestJson).get("messages");
    return messages.get(messages.size() - 1).get("content").asText();
  }
}
