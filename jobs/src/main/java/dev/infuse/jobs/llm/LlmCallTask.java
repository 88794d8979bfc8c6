package dev.infuse.jobs.llm;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.infuse.udfs.llm.ChatRequest;
import dev.infuse.udfs.llm.ChatResponse;
import dev.infuse.udfs.llm.LlmCallException;
import dev.infuse.udfs.llm.LlmClient;
import dev.infuse.udfs.llm.LlmClients;
import dev.infuse.udfs.llm.LlmSettings;
import java.io.Serializable;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.apache.spark.SparkContext;
import org.apache.spark.TaskContext;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.Row;
import org.apache.spark.util.LongAccumulator;
import org.apache.spark.util.SerializableConfiguration;

/**
 * Makes the calls of one partition on an executor. All of them are submitted at once to the JVM's
 * shared client, which bounds how many are in flight; each finished call is journaled before the
 * task ends, and every request ends as a succeeded or failed row: none is dropped. A retried
 * attempt takes the calls an earlier attempt of its partition journaled as succeeded instead of
 * sending them again. The closure carries only settings, the journal path and accumulators; the
 * client is built once per executor JVM.
 */
final class LlmCallTask implements FlatMapFunction<Iterator<Row>, Row> {
  private static final long serialVersionUID = 1L;
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int JOURNAL_ROLL_LINES = 64;

  private final List<LlmSettings> clients;
  private final String journalDir;
  private final String runId;
  private final Broadcast<SerializableConfiguration> hadoop;
  private final LlmProgress.Accumulators progress;
  private final Totals totals;

  /**
   * A wave's exact totals: calls, failures, tokens in and out. Unlike the progress counters, which
   * the client's threads add to as calls finish, these are added once per task on the task's own
   * thread, so a stage that writes the rows (a result stage, whose retried tasks never count twice)
   * can take them as the wave's figures.
   */
  record Totals(
      LongAccumulator calls,
      LongAccumulator failed,
      LongAccumulator tokensIn,
      LongAccumulator tokensOut)
      implements Serializable {
    static Totals register(SparkContext context, String job) {
      return new Totals(
          context.longAccumulator(job + ".llm.wave.calls"),
          context.longAccumulator(job + ".llm.wave.failed"),
          context.longAccumulator(job + ".llm.wave.tokens_in"),
          context.longAccumulator(job + ".llm.wave.tokens_out"));
    }

    /** The totals so far, {calls, failed, tokens in, tokens out}, and a reset for the next wave. */
    long[] take() {
      long[] values = {calls.value(), failed.value(), tokensIn.value(), tokensOut.value()};
      calls.reset();
      failed.reset();
      tokensIn.reset();
      tokensOut.reset();
      return values;
    }
  }

  LlmCallTask(
      List<LlmSettings> clients,
      String journalDir,
      String runId,
      Broadcast<SerializableConfiguration> hadoop,
      LlmProgress.Accumulators progress,
      Totals totals) {
    this.clients = List.copyOf(clients);
    this.journalDir = journalDir;
    this.runId = runId;
    this.hadoop = hadoop;
    this.progress = progress;
    this.totals = totals;
  }

  /**
   * Input rows are {@code (call_key, chat_request JSON, canonical request, client index)}; output
   * rows are {@code llm_calls} rows.
   */
  @Override
  public Iterator<Row> call(Iterator<Row> requests) {
    List<LlmClient> built = new ArrayList<>(clients.size());
    for (LlmSettings settings : clients) {
      built.add(LlmClients.forSettings(settings));
    }
    TaskContext task = TaskContext.get();
    String partition = "part-" + task.stageId() + "-" + task.partitionId() + "-";
    // A retried task (or stage) finds what its earlier attempts finished in this run's journal,
    // and does not pay for those calls again.
    Map<String, LlmCallRows.Call> finished =
        task.attemptNumber() > 0 || task.stageAttemptNumber() > 0
            ? CallJournal.succeeded(hadoop.value().value(), journalDir, partition + "*")
            : Map.of();
    List<CompletableFuture<LlmCallRows.Call>> calls = new ArrayList<>();
    try (CallJournal journal =
        new CallJournal(
            hadoop.value().value(),
            journalDir,
            partition + task.taskAttemptId(),
            JOURNAL_ROLL_LINES)) {
      while (requests.hasNext()) {
        Row request = requests.next();
        LlmCallRows.Call earlier = finished.get(request.getString(0));
        if (earlier != null) {
          record(earlier);
          calls.add(CompletableFuture.completedFuture(earlier));
          continue;
        }
        int index = request.getInt(3);
        calls.add(
            call(
                    built.get(index),
                    clients.get(index),
                    request.getString(0),
                    request.getString(1),
                    request.getString(2))
                .thenApply(
                    result -> {
                      journal.append(result.toJsonLine());
                      record(result);
                      return result;
                    }));
      }
      CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new)).join();
      CrashPoints.reach(CrashPoints.Point.TASK_CALLS_JOURNALED);
    }
    List<Row> rows = new ArrayList<>(calls.size());
    long failed = 0;
    long tokensIn = 0;
    long tokensOut = 0;
    for (CompletableFuture<LlmCallRows.Call> call : calls) {
      LlmCallRows.Call done = call.join();
      rows.add(done.toRow());
      failed += LlmCallRows.FAILED.equals(done.status()) ? 1 : 0;
      tokensIn += done.tokensIn();
      tokensOut += done.tokensOut();
    }
    totals.calls().add(rows.size());
    totals.failed().add(failed);
    totals.tokensIn().add(tokensIn);
    totals.tokensOut().add(tokensOut);
    return rows.iterator();
  }

  private CompletableFuture<LlmCallRows.Call> call(
      LlmClient client, LlmSettings settings, String key, String requestJson, String canonical) {
    ChatRequest request;
    try {
      request = JSON.readValue(requestJson, ChatRequest.class);
    } catch (JsonProcessingException e) {
      return CompletableFuture.completedFuture(
          failure(
              settings, key, canonical, "request does not parse: " + e.getOriginalMessage(), 0, 0));
    }
    long started = System.nanoTime();
    CompletableFuture<ChatResponse> response;
    try {
      response = client.complete(request);
    } catch (RuntimeException e) {
      response = CompletableFuture.failedFuture(e);
    }
    return response.handle(
        (ok, error) -> {
          if (ok != null) {
            return new LlmCallRows.Call(
                key,
                client.backend(),
                request.model(),
                canonical,
                ok.text(),
                ok.finishReason(),
                ok.promptTokens(),
                ok.completionTokens(),
                ok.latencyMillis(),
                ok.attempts(),
                LlmCallRows.SUCCEEDED,
                null,
                runId,
                Instant.now());
          }
          Throwable cause =
              error instanceof CompletionException && error.getCause() != null
                  ? error.getCause()
                  : error;
          int attempts = cause instanceof LlmCallException failed ? failed.attempts() : 1;
          return failure(
              settings,
              key,
              canonical,
              String.valueOf(cause.getMessage() == null ? cause : cause.getMessage()),
              attempts,
              (System.nanoTime() - started) / 1_000_000);
        });
  }

  private LlmCallRows.Call failure(
      LlmSettings settings,
      String key,
      String canonical,
      String error,
      int attempts,
      long latencyMs) {
    return new LlmCallRows.Call(
        key,
        settings.backend().id(),
        settings.model(),
        canonical,
        null,
        null,
        0,
        0,
        latencyMs,
        Math.max(attempts, 1),
        LlmCallRows.FAILED,
        error,
        runId,
        Instant.now());
  }

  private void record(LlmCallRows.Call call) {
    progress.rows().add(1);
    progress.tokens().add(call.tokensIn() + call.tokensOut());
    if (LlmCallRows.FAILED.equals(call.status())) {
      progress.errors().add(1);
    }
  }
}
