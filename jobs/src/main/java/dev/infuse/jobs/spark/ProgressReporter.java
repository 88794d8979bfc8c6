package dev.infuse.jobs.spark;

import java.io.PrintWriter;
import java.util.Locale;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.spark.SparkContext;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerStageSubmitted;
import org.apache.spark.scheduler.SparkListenerTaskEnd;

/**
 * Prints progress on the driver at a steady interval while a job runs: tasks done out of submitted,
 * the task rate, records read per second and an ETA. Spark's own console bar is off, since it
 * garbles piped output and says nothing of rates.
 */
public final class ProgressReporter implements AutoCloseable {
  private final SparkContext context;
  private final Listener listener = new Listener();
  private final ScheduledExecutorService timer;
  private final long startNanos = System.nanoTime();

  private ProgressReporter(SparkContext context, String job, int intervalSeconds, PrintWriter err) {
    this.context = context;
    context.addSparkListener(listener);
    timer =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread thread = new Thread(r, "infuse-progress");
              thread.setDaemon(true);
              return thread;
            });
    timer.scheduleAtFixedRate(
        () -> report(job, err), intervalSeconds, intervalSeconds, TimeUnit.SECONDS);
  }

  /** Starts reporting; an interval of 0 or less gives a reporter that prints nothing. */
  public static AutoCloseable start(
      SparkContext context, String job, int intervalSeconds, PrintWriter err) {
    if (intervalSeconds <= 0) {
      return () -> {};
    }
    return new ProgressReporter(context, job, intervalSeconds, err);
  }

  private void report(String job, PrintWriter err) {
    long submitted = listener.submitted.get();
    long done = listener.done.get();
    double seconds = Math.max(1e-3, (System.nanoTime() - startNanos) / 1e9);
    double rate = done / seconds;
    String eta =
        rate > 0 && submitted > done
            ? String.format(Locale.ROOT, "%.0fs", (submitted - done) / rate)
            : "-";
    err.printf(
        Locale.ROOT,
        "[%s] %.0fs: tasks %d/%d done (%d failed), %.1f tasks/s, %.0f records/s read, ETA %s%n",
        job,
        seconds,
        done,
        submitted,
        listener.failed.get(),
        rate,
        listener.records.get() / seconds,
        eta);
    err.flush();
  }

  @Override
  public void close() {
    timer.shutdownNow();
    context.removeSparkListener(listener);
  }

  private static final class Listener extends SparkListener {
    final AtomicLong submitted = new AtomicLong();
    final AtomicLong done = new AtomicLong();
    final AtomicLong failed = new AtomicLong();
    final AtomicLong records = new AtomicLong();

    @Override
    public void onStageSubmitted(SparkListenerStageSubmitted stage) {
      submitted.addAndGet(stage.stageInfo().numTasks());
    }

    @Override
    public void onTaskEnd(SparkListenerTaskEnd task) {
      done.incrementAndGet();
      if (!task.taskInfo().successful()) {
        failed.incrementAndGet();
      }
      if (task.taskMetrics() != null) {
        records.addAndGet(task.taskMetrics().inputMetrics().recordsRead());
      }
    }
  }
}
