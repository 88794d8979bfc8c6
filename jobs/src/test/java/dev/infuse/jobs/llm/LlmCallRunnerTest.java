package dev.infuse.jobs.llm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.infuse.jobs.SparkTestSession;
import dev.infuse.jobs.cli.JobCatalog;
import dev.infuse.jobs.run.JobRun;
import dev.infuse.udfs.llm.ChatMessage;
import dev.infuse.udfs.llm.ChatRequest;
import dev.infuse.udfs.llm.FakeOpenAiServer;
import dev.infuse.udfs.llm.GenerationParams;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.TaskContext;
import org.apache.spark.scheduler.TaskSchedulerImpl;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;

/**
 * Exactly-once LLM calls where a run does not end cleanly: a crash between a wave's merge and its
 * journal's deletion, an older run's journal that disagrees with {@code llm_calls}, a Spark task
 * retried inside one run, and a journal rolled on an object store. Each request carries one user
 * message, so {@link FakeOpenAiServer#requestsFor} counts the requests sent for each key.
 */
class LlmCallRunnerTest {
  private static final SparkSession SPARK = SparkTestSession.get();
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final StructType REQUESTS =
      new StructType()
          .add("call_key", DataTypes.StringType, false)
          .add("chat_request", DataTypes.StringType, false)
          .add("canonical_request", DataTypes.StringType, false);

  @Test
  void aCrashBetweenTheMergeAndTheJournalDeleteLeavesNoDuplicateAndResendsNoSuccess() {
    String warehouse = SparkTestSession.tempDir("llm-merge-crash").toString();
    try (FakeOpenAiServer server = new FakeOpenAiServer()) {
      server.faults().failForUserMessage("k4", FakeOpenAiServer.Fault.SERVER_ERROR);
      List<String> keys = List.of("k1", "k2", "k3", "k4");
      JobRun first = run(warehouse, server, 2);
      try (CrashPoints.Installed crash =
          CrashPoints.install(
              point -> {
                if (point == CrashPoints.Point.WAVE_MERGED) {
                  throw new IllegalStateException("crash after the merge");
                }
              })) {
        assertThatThrownBy(() -> new LlmCallRunner(first).call(requests(keys)))
            .hasMessage("crash after the merge");
      }
      // What a crash there leaves: the wave in llm_calls, and its journal still on disk.
      assertThat(callsByKey(first)).containsOnlyKeys(keys);
      assertThat(journalLines(warehouse, first.runId())).isEqualTo(4);

      JobRun second = run(warehouse, server, 2);
      LlmCallRunner.Outcome outcome = new LlmCallRunner(second).call(requests(keys));

      assertThat(second.warehouse().read("llm_calls").count()).as("llm_calls rows").isEqualTo(4);
      assertThat(callsByKey(second))
          .as("llm_calls by key: status, run, response")
          .containsEntry("k1", "succeeded " + first.runId() + " echo: k1")
          .containsEntry("k2", "succeeded " + first.runId() + " echo: k2")
          .containsEntry("k3", "succeeded " + first.runId() + " echo: k3")
          .containsEntry("k4", "failed " + second.runId() + " null");
      assertThat(server.requestsByUserMessage())
          .as("requests by key, both runs; the failed k4 is tried again")
          .containsExactlyInAnyOrderEntriesOf(Map.of("k1", 1, "k2", 1, "k3", 1, "k4", 2));
      assertThat(outcome.cached()).isEqualTo(3);
      assertThat(outcome.called()).isEqualTo(1);
      assertThat(journalRuns(warehouse)).as("journals left over").isEmpty();
    }
  }

  @Test
  void anOlderRunsJournalNeverOverwritesASuccessInLlmCalls() {
    String warehouse = SparkTestSession.tempDir("llm-older-journal").toString();
    try (FakeOpenAiServer server = new FakeOpenAiServer()) {
      JobRun first = run(warehouse, server, 4);
      new LlmCallRunner(first).call(requests(List.of("a", "b")));
      assertThat(server.totalRequests()).isEqualTo(2);

      // The journal of an older run that was killed: it failed on a, got another answer for b,
      // and answered c, which llm_calls does not hold yet.
      Instant older = Instant.parse("2024-01-01T00:00:00Z");
      writeJournal(
          warehouse,
          "older-run",
          journaled("a", "failed", null, "older-run", older),
          journaled("b", "succeeded", "stale answer for b", "older-run", older),
          journaled("c", "succeeded", "journaled answer for c", "older-run", older));

      JobRun second = run(warehouse, server, 4);
      LlmCallRunner.Outcome outcome =
          new LlmCallRunner(second).call(requests(List.of("a", "b", "c")));

      assertThat(callsByKey(second))
          .as("llm_calls by key: status, run, response")
          .containsExactlyInAnyOrderEntriesOf(
              Map.of(
                  "a", "succeeded " + first.runId() + " echo: a",
                  "b", "succeeded " + first.runId() + " echo: b",
                  "c", "succeeded older-run journaled answer for c"));
      assertThat(server.totalRequests()).as("requests of both runs").isEqualTo(2);
      assertThat(outcome.cached()).isEqualTo(3);
      assertThat(outcome.called()).isZero();
      assertThat(journalRuns(warehouse)).as("journals left over").isEmpty();
    }
  }

  @Test
  void aTaskRetriedInsideOneRunResendsNoKeyItsFailedAttemptJournaled() {
    String warehouse = SparkTestSession.tempDir("llm-task-retry").toString();
    List<String> keys = List.of("r1", "r2", "r3", "r4", "r5", "r6");
    AtomicInteger injected = new AtomicInteger();
    try (FakeOpenAiServer server = new FakeOpenAiServer();
        TaskRetries retries = TaskRetries.allow(2);
        CrashPoints.Installed crash =
            CrashPoints.install(
                point -> {
                  TaskContext task = TaskContext.get();
                  if (point == CrashPoints.Point.TASK_CALLS_JOURNALED
                      && task.partitionId() == 0
                      && task.attemptNumber() == 0) {
                    injected.incrementAndGet();
                    throw new IllegalStateException("task lost after its calls");
                  }
                })) {
      JobRun only = run(warehouse, server, 3);
      LlmCallRunner.Outcome outcome = new LlmCallRunner(only).call(requests(keys));

      assertThat(injected.get()).as("first attempts of partition 0 that failed").isEqualTo(1);
      assertThat(outcome.called()).isEqualTo(6);
      assertThat(outcome.failed()).isZero();
      Map<String, Integer> once = new TreeMap<>();
      keys.forEach(key -> once.put(key, 1));
      assertThat(server.requestsByUserMessage()).as("requests by key").isEqualTo(once);
      assertThat(callsByKey(only))
          .hasSize(6)
          .allSatisfy((key, call) -> assertThat(call).startsWith("succeeded"));
    }
  }

  @Test
  void aJournalRolledOnAnObjectStoreIsFoldedInWhole() throws Exception {
    String warehouse = SparkTestSession.tempDir("llm-rolled-journal").toString();
    List<String> keys = new ArrayList<>();
    Configuration objectStore = CallJournalTest.objectStore();
    try (CallJournal journal =
        new CallJournal(
            objectStore,
            Path.of(warehouse, "_journal", "llm_calls", "killed-run").toUri().toString(),
            "part-5-0-9",
            64)) {
      for (int i = 0; i < 150; i++) {
        keys.add(String.format("key-%03d", i));
        journal.append(
            journaled(keys.get(i), "succeeded", "answer " + i, "killed-run", Instant.now())
                .toJsonLine());
      }
    }
    try (Stream<Path> files =
        Files.list(Path.of(warehouse, "_journal", "llm_calls", "killed-run"))) {
      assertThat(files.count()).as("files the journal rolled into").isEqualTo(3);
    }
    try (FakeOpenAiServer server = new FakeOpenAiServer()) {
      JobRun rerun = run(warehouse, server, 64);
      LlmCallRunner.Outcome outcome = new LlmCallRunner(rerun).call(requests(keys));

      assertThat(server.totalRequests()).as("requests sent for journaled keys").isZero();
      assertThat(outcome.cached()).isEqualTo(150);
      assertThat(rerun.warehouse().read("llm_calls").filter("run_id = 'killed-run'").count())
          .isEqualTo(150);
    }
  }

  /**
   * Lets the shared session's scheduler try a failed task again, as a cluster does ({@code
   * spark.task.maxFailures}, 4 by default), until closed. A local master fixes the number at start
   * ({@code local[N,F]}), and the shared {@code local[2]} allows no retry; one JVM has one
   * SparkContext, so the test sets the scheduler's limit for task sets submitted meanwhile.
   */
  private static final class TaskRetries implements AutoCloseable {
    private final TaskSchedulerImpl scheduler;
    private final Field limit;
    private final int before;

    private TaskRetries(int maxFailures) throws ReflectiveOperationException {
      scheduler = (TaskSchedulerImpl) SPARK.sparkContext().taskScheduler();
      limit = TaskSchedulerImpl.class.getDeclaredField("maxTaskFailures");
      limit.setAccessible(true);
      before = limit.getInt(scheduler);
      limit.setInt(scheduler, maxFailures);
    }

    static TaskRetries allow(int maxFailures) {
      try {
        return new TaskRetries(maxFailures);
      } catch (ReflectiveOperationException e) {
        throw new IllegalStateException("cannot set the scheduler's maxTaskFailures", e);
      }
    }

    @Override
    public void close() {
      try {
        limit.setInt(scheduler, before);
      } catch (IllegalAccessException e) {
        throw new IllegalStateException(e);
      }
    }
  }

  private static JobRun run(String warehouse, FakeOpenAiServer server, int rowsPerTask) {
    var config =
        JobCatalog.configLoader()
            .setString("warehouse", warehouse)
            .set("llm.backend=openai")
            .set("llm.base_url=" + server.baseUrl())
            .set("llm.model=fake-1")
            .set("llm.max_attempts=1")
            .set("llm.max_concurrency=4")
            .set("llm.rows_per_task=" + rowsPerTask)
            .load();
    return new JobRun(
        "llm-test",
        SPARK,
        config,
        new PrintWriter(new StringWriter()),
        new PrintWriter(new StringWriter()));
  }

  /** One request per key, whose only message is the key itself. */
  private static Dataset<Row> requests(List<String> keys) {
    List<Row> rows = new ArrayList<>();
    for (String key : keys) {
      ChatRequest request =
          new ChatRequest(
              "fake-1",
              List.of(new ChatMessage("user", key)),
              new GenerationParams(16, 0, 1, 1, List.of(), 7L, false, null),
              Map.of());
      try {
        rows.add(RowFactory.create(key, JSON.writeValueAsString(request), "canonical " + key));
      } catch (JsonProcessingException e) {
        throw new IllegalStateException(e);
      }
    }
    return SPARK.createDataFrame(rows, REQUESTS);
  }

  /** {@code llm_calls} by key: status, run id and response text. */
  private static Map<String, String> callsByKey(JobRun run) {
    Map<String, String> calls = new TreeMap<>();
    for (Row row :
        run.warehouse()
            .read("llm_calls")
            .select("call_key", "status", "run_id", "response_text")
            .collectAsList()) {
      calls.put(
          row.getString(0), row.getString(1) + " " + row.getString(2) + " " + row.getString(3));
    }
    return calls;
  }

  static LlmCallRows.Call journaled(
      String key, String status, String response, String runId, Instant at) {
    boolean ok = status.equals(LlmCallRows.SUCCEEDED);
    return new LlmCallRows.Call(
        key,
        "openai",
        "fake-1",
        "canonical " + key,
        response,
        ok ? "stop" : null,
        ok ? 3 : 0,
        ok ? 2 : 0,
        10,
        1,
        status,
        ok ? null : "HTTP 500",
        runId,
        at);
  }

  private static void writeJournal(String warehouse, String runId, LlmCallRows.Call... calls) {
    Path dir = Path.of(warehouse, "_journal", "llm_calls", runId);
    StringBuilder lines = new StringBuilder();
    for (LlmCallRows.Call call : calls) {
      lines.append(call.toJsonLine()).append('\n');
    }
    try {
      Files.createDirectories(dir);
      Files.writeString(dir.resolve("part-0-0-0-0.jsonl"), lines, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The runs whose journal is still in the warehouse. */
  private static List<String> journalRuns(String warehouse) {
    Path root = Path.of(warehouse, "_journal", "llm_calls");
    if (!Files.isDirectory(root)) {
      return List.of();
    }
    try (Stream<Path> runs = Files.list(root)) {
      return runs.map(p -> p.getFileName().toString()).toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static long journalLines(String warehouse, String runId) {
    try (Stream<Path> files = Files.list(Path.of(warehouse, "_journal", "llm_calls", runId))) {
      long lines = 0;
      for (Path file : files.filter(f -> f.toString().endsWith(".jsonl")).toList()) {
        lines += Files.readAllLines(file).size();
      }
      return lines;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
