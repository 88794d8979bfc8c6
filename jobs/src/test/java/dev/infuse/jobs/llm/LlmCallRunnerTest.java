package dev.infuse.jobs.llm;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.infuse.jobs.SparkTestSession;
import dev.infuse.jobs.cli.JobCatalog;
import dev.infuse.jobs.run.JobRun;
import dev.infuse.udfs.llm.ChatMessage;
import dev.infuse.udfs.llm.ChatRequest;
import dev.infuse.udfs.llm.FakeOpenAiServer;
import dev.infuse.udfs.llm.GenerationParams;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.reflect.Field;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
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
 * Exactly-once LLM calls where a run does not end cleanly: a Spark task retried inside one run.
 * Each request carries one user message, so {@link FakeOpenAiServer#requestsFor} counts the
 * requests sent for each key.
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
}
