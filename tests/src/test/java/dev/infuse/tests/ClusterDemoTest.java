package dev.infuse.tests;

import static org.assertj.core.api.Assertions.assertThat;

import dev.infuse.jobs.SparkTestSession;
import dev.infuse.jobs.io.Warehouse;
import dev.infuse.tests.StandaloneCluster.Submitted;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The demo's first steps on a Spark standalone cluster (a master and two workers, each executor a
 * JVM of its own) through {@code spark-submit --class dev.infuse.jobs.Main} and the shaded jar:
 * every job of those steps completes, its tasks ran in the executors and not in the driver, and
 * every data table it wrote equals the local demo's table at the same version. A closure that
 * captures something heavy or unserializable, state that only the driver has, or a result that
 * depends on where a task ran fails here and nowhere else.
 */
@Tag("production")
class ClusterDemoTest {
  /**
   * Through the MAPoRL discussion (ingest, chunk, embed, gen-qa, gen-docs, three shard builds,
   * three trainings, the model probe, discuss, reward and score): every job kind that runs its work
   * in tasks. The rest of the demo repeats these jobs' patterns at ten minutes more.
   */
  private static final int LAST_STEP = 20;

  /**
   * The steps during which an executor is killed: a generation job, a shard build and the MAPoRL
   * discussion.
   */
  private static final List<String> KILLED_DURING =
      List.of("== 9/42 gen-qa", "== 11/42 build-shards", "== 18/42 discuss");

  private static final Pattern FINISHED_TASK =
      Pattern.compile("Executor: Finished task \\S+ in stage \\S+ \\(TID (\\d+)\\)");

  @Test
  void theDemoThroughSparkSubmitOnAClusterWritesTheLocalRunsTables() throws Exception {
    String local = DemoWarehouse.get();
    Path dir = SparkTestSession.tempDir("cluster-demo");
    String warehouse = dir.resolve("warehouse").toString();
    Path driverLog = dir.resolve("driver.log");
    Submitted run;
    List<Path> executorLogs;
    ExecutorKiller killer;
    try (StandaloneCluster cluster = StandaloneCluster.start(2, 1, "1200m")) {
      killer = new ExecutorKiller(cluster, driverLog, KILLED_DURING);
      killer.start();
      run =
          cluster.submit(
              driverLog,
              List.of(
                  "spark.executor.memory=1g",
                  "spark.executor.extraJavaOptions=-Dai.djl.offline=true"
                      + " -Dai.djl.pytorch.num_threads=1",
                  "spark.ui.enabled=false",
                  // The partitioning a local run gives these tiny tables (SparkSessions); the
                  // cluster defaults (200 shuffle partitions, 50 for Delta snapshots) would make
                  // every query hundreds of empty tasks.
                  "spark.sql.shuffle.partitions=4",
                  "spark.databricks.delta.snapshotPartitions=4"),
              "demo",
              "--warehouse",
              warehouse,
              "--stop-after",
              String.valueOf(LAST_STEP));
      killer.finish();
      executorLogs = cluster.executorLogs();
    }
    assertThat(run.code()).as(run.output()).isZero();
    assertThat(run.output())
        .contains("Connected to Spark cluster with app ID")
        .contains("== " + LAST_STEP + "/42 ")
        .contains("Demo stopped after step " + LAST_STEP + " of 42");

    // An executor JVM died in the middle of each of those steps (its heading printed, its next
    // not yet), the worker started a replacement, and the step went on to succeed.
    assertThat(killer.kills()).as("executors killed").hasSize(KILLED_DURING.size());
    for (String step : KILLED_DURING) {
      String during = between(run.output(), step, "\n== ");
      assertThat(during).as("driver log during " + step).contains("Lost executor");
    }

    // The tasks ran in executor JVMs: two at the start, one more per kill, each of which logged
    // finished tasks, while the driver (which in a standalone cluster has no executor of its own)
    // logged none.
    assertThat(executorLogs).as("executor logs").hasSize(2 + KILLED_DURING.size());
    for (Path log : executorLogs) {
      assertThat(finishedTasks(Files.readString(log))).as(log.toString()).isPositive();
    }
    assertThat(finishedTasks(run.output())).as("tasks finished in the driver").isZero();

    // Every step ran as a recorded run against the cluster's master.
    List<Row> runs = new Warehouse(SparkTestSession.get(), warehouse).read("runs").collectAsList();
    assertThat(runs).hasSize(LAST_STEP - 1); // the model probe is a step but not a recorded run
    assertThat(runs)
        .allSatisfy(r -> assertThat(r.<String>getAs("status")).isEqualTo("succeeded"))
        .allSatisfy(r -> assertThat(r.<String>getAs("config_json")).contains("spark://127.0.0.1"));

    List<String> differences =
        new WarehouseComparison(SparkTestSession.get(), warehouse, local)
            .differences(Map.of("runs", "run metadata: ids, times, the master, the warehouse"));
    assertThat(differences).as("tables that differ from the local run's").isEmpty();
  }

  /** The text from {@code start} to the next {@code end} after it (or to the end). */
  private static String between(String text, String start, String end) {
    int from = text.indexOf(start);
    assertThat(from).as("'" + start + "' in the driver log").isNotNegative();
    int to = text.indexOf(end, from + start.length());
    return text.substring(from, to < 0 ? text.length() : to);
  }

  private static long finishedTasks(String log) {
    Matcher matcher = FINISHED_TASK.matcher(log);
    long count = 0;
    while (matcher.find()) {
      count++;
    }
    return count;
  }

  /**
   * Kills one executor JVM (SIGKILL, as a lost node would) in each of the given steps: once the
   * driver has printed the step's heading and an executor has then started a task.
   */
  private static final class ExecutorKiller extends Thread {
    private final StandaloneCluster cluster;
    private final Path driverLog;
    private final List<String> steps;
    private final List<String> kills = new CopyOnWriteArrayList<>();
    private volatile boolean finished;

    ExecutorKiller(StandaloneCluster cluster, Path driverLog, List<String> steps) {
      super("executor-killer");
      setDaemon(true);
      this.cluster = cluster;
      this.driverLog = driverLog;
      this.steps = steps;
    }

    @Override
    public void run() {
      try {
        long driverOffset = 0;
        for (String step : steps) {
          LogTail driver = new LogTail(driverLog, driverOffset);
          if (!await(() -> driver.contains(step))) {
            return;
          }
          driverOffset = driver.offset();
          List<LogTail> executors = new ArrayList<>();
          for (Path log : cluster.executorLogs()) {
            executors.add(new LogTail(log, Files.size(log)));
          }
          if (!await(() -> anyContains(executors, "Executor: Running task"))) {
            return;
          }
          List<ProcessHandle> live = cluster.executors();
          if (live.isEmpty()) {
            return;
          }
          ProcessHandle victim = live.get(kills.size() % live.size());
          victim.destroyForcibly();
          kills.add(step + ": executor pid " + victim.pid());
        }
      } catch (IOException e) {
        kills.add("failed: " + e);
      }
    }

    private static boolean anyContains(List<LogTail> logs, String text) throws IOException {
      for (LogTail log : logs) {
        if (log.contains(text)) {
          return true;
        }
      }
      return false;
    }

    private boolean await(Check check) throws IOException {
      while (!finished) {
        if (check.holds()) {
          return true;
        }
        try {
          Thread.sleep(100);
        } catch (InterruptedException e) {
          return false;
        }
      }
      return false;
    }

    /** Stops waiting once the application has ended. */
    void finish() throws InterruptedException {
      finished = true;
      join(10_000);
    }

    List<String> kills() {
      return kills;
    }

    private interface Check {
      boolean holds() throws IOException;
    }
  }

  /** What a growing log file gained since an offset, read incrementally. */
  private static final class LogTail {
    private final Path file;
    private long offset;
    private final StringBuilder seen = new StringBuilder();

    LogTail(Path file, long offset) {
      this.file = file;
      this.offset = offset;
    }

    boolean contains(String text) throws IOException {
      if (Files.exists(file)) {
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "r")) {
          long length = raf.length();
          if (length > offset) {
            byte[] bytes = new byte[(int) (length - offset)];
            raf.seek(offset);
            raf.readFully(bytes);
            offset = length;
            seen.append(new String(bytes, StandardCharsets.UTF_8));
          }
        }
      }
      return seen.indexOf(text) >= 0;
    }

    long offset() {
      return offset;
    }
  }
}
