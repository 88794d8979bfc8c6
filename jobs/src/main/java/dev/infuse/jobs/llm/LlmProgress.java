package dev.infuse.jobs.llm;

import java.io.PrintWriter;
import java.io.Serializable;
import java.util.Locale;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.spark.SparkContext;
import org.apache.spark.util.LongAccumulator;

/**
 * Prints LLM progress on the driver at a steady interval: rows done out of total, requests and
 * tokens per second, errors and an ETA. Counts come from accumulators, which reach the driver as
 * tasks finish, so tasks are kept small ({@code llm.rows_per_task}).
 */
final class LlmProgress implements AutoCloseable {
  /** The counters tasks add to. */
  record Accumulators(LongAccumulator rows, LongAccumulator tokens, LongAccumulator errors)
      implements Serializable {
    static Accumulators register(SparkContext context, String job) {
      return new Accumulators(
          context.longAccumulator(job + ".llm.rows"),
          context.longAccumulator(job + ".llm.tokens"),
          context.longAccumulator(job + ".llm.errors"));
    }
  }

  private final ScheduledExecutorService timer;
  private final long startNanos = System.nanoTime();

  LlmProgress(String job, Accumulators counters, long total, int intervalSeconds, PrintWriter err) {
    timer =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread thread = new Thread(r, "infuse-llm-progress");
              thread.setDaemon(true);
              return thread;
            });
    if (intervalSeconds > 0) {
      timer.scheduleAtFixedRate(
          () -> print(job, counters, total, err),
          intervalSeconds,
          intervalSeconds,
          TimeUnit.SECONDS);
    }
  }

  private void print(String job, Accumulators counters, long total, PrintWriter err) {
    long rows = counters.rows().value();
    double seconds = Math.max(1e-3, (System.nanoTime() - startNanos) / 1e9);
    double rate = rows / seconds;
    String eta =
        rate > 0 && total > rows ? String.format(Locale.ROOT, "%.0fs", (total - rows) / rate) : "-";
    err.printf(
        Locale.ROOT,
        "[%s] llm: %d/%d rows, %.1f req/s, %.0f tokens/s, %d errors, ETA %s%n",
        job,
        rows,
        total,
        rate,
        counters.tokens().value() / seconds,
        counters.errors().value(),
        eta);
    err.flush();
  }

  @Override
  public void close() {
    timer.shutdownNow();
  }
}
