package dev.infuse.tests;

import static org.assertj.core.api.Assertions.assertThat;

import dev.infuse.jobs.SparkTestSession;
import dev.infuse.udfs.bench.BenchResult;
import dev.infuse.udfs.bench.BenchResults;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * What a user waits for at the shell: {@code bin/infuse ingest} of one GSM8K question into a fresh
 * warehouse (goal ≤ 10 s) and {@code bin/infuse demo} into a fresh directory (goal ≤ 300 s), each a
 * child process started from the repository's launcher with its defaults, so JVM start, Spark's
 * session and Delta's first commit all count. Records both; asserts only that they succeed. Run
 * {@code bin/infuse bench --only ProcessFixedCostBenchmarkTest}; {@code -Dbench.ingestRuns}
 * (default 3) sets the timed ingests, {@code -Dbench.demo=false} skips the demo.
 */
@Tag("benchmark")
class ProcessFixedCostBenchmarkTest {
  private static final int INGEST_RUNS = Integer.getInteger("bench.ingestRuns", 3);
  private static final boolean DEMO =
      Boolean.parseBoolean(System.getProperty("bench.demo", "true"));

  @Test
  void ingestOneQuestion() throws Exception {
    Path dir = SparkTestSession.tempDir("bench-ingest");
    Path input = dir.resolve("one-question.jsonl");
    String first =
        Files.readAllLines(
                SparkTestSession.repoRoot().resolve("samples/gsm8k/gsm8k_train_sample.jsonl"))
            .get(0);
    Files.writeString(input, first + "\n");

    // The launcher's jars read once first: a cold OS file cache is a first-ever cost, not the cost
    // of each ingest (an untimed ingest did this for 20 s; ingest loads no DJL natives).
    readLauncherJars();
    double[] seconds = new double[INGEST_RUNS];
    for (int run = 0; run < INGEST_RUNS; run++) {
      Path warehouse = dir.resolve("warehouse-" + run);
      double wall =
          timed(
              dir,
              "ingest",
              "--format",
              "gsm8k",
              "--input",
              input.toString(),
              "--warehouse",
              warehouse.toString());
      assertThat(warehouse.resolve("questions/_delta_log")).isDirectory();
      seconds[run] = wall;
    }
    double[] sorted = seconds.clone();
    Arrays.sort(sorted);
    double median = sorted[sorted.length / 2];
    System.out.printf(
        Locale.ROOT,
        "bin/infuse ingest, one GSM8K question, fresh warehouse: median %.1f s of %s%n",
        median,
        Arrays.toString(seconds));
    BenchResults.record(
        new BenchResult(
            "bin/infuse ingest, one GSM8K question",
            String.format(Locale.ROOT, "%.1f s", median),
            "",
            median,
            "s",
            false,
            10,
            String.format(
                Locale.ROOT,
                "median of %d child processes, jars in the OS file cache, fresh warehouse each,"
                    + " launcher defaults, %d cores",
                INGEST_RUNS,
                Runtime.getRuntime().availableProcessors())));
    deleteTree(dir);
  }

  @Test
  void demo() throws Exception {
    if (!DEMO) {
      return;
    }
    // The demo writes ./warehouse: a fresh working directory is a fresh demo, as the README runs
    // it.
    Path dir = SparkTestSession.tempDir("bench-demo");
    double wall = timed(dir, "demo");
    assertThat(dir.resolve("warehouse/runs/_delta_log")).isDirectory();
    System.out.printf(Locale.ROOT, "bin/infuse demo, fresh directory: %.0f s%n", wall);
    BenchResults.record(
        new BenchResult(
            "bin/infuse demo",
            String.format(Locale.ROOT, "%.0f s", wall),
            "",
            wall,
            "s",
            false,
            300,
            String.format(
                Locale.ROOT,
                "one child process, fresh directory, launcher defaults, %d cores",
                Runtime.getRuntime().availableProcessors())));
    deleteTree(dir);
  }

  /** Reads the jars {@code bin/infuse} runs on (its jar and jobs/target/classpath.txt's). */
  private static void readLauncherJars() throws IOException {
    Path target = SparkTestSession.repoRoot().resolve("jobs/target");
    List<Path> jars = new ArrayList<>();
    try (var built = Files.list(target)) {
      built.filter(p -> p.getFileName().toString().endsWith("-all.jar")).forEach(jars::add);
    }
    Path classpath = target.resolve("classpath.txt");
    if (Files.isRegularFile(classpath)) {
      for (String entry : Files.readString(classpath).strip().split(java.io.File.pathSeparator)) {
        if (!entry.isBlank()) {
          jars.add(Path.of(entry));
        }
      }
    }
    for (Path jar : jars) {
      if (Files.isRegularFile(jar)) {
        try (var in = Files.newInputStream(jar)) {
          in.transferTo(java.io.OutputStream.nullOutputStream());
        }
      }
    }
  }

  /** Runs {@code bin/infuse args} in {@code dir} and returns its wall time in seconds. */
  private static double timed(Path dir, String... args) throws IOException, InterruptedException {
    // The launcher's defaults, as a user runs it; and never a rebuild (an online mvn package).
    Map<String, String> defaults = new HashMap<>();
    defaults.put("INFUSE_JAVA_OPTS", null);
    defaults.put("INFUSE_CLASSPATH", null);
    defaults.put("INFUSE_REBUILD", null);
    return LauncherChild.run(dir, defaults, 30, args).seconds();
  }

  /**
   * Removes a passed run's directory (a demo leaves a warehouse); a failed one stays to be read.
   */
  private static void deleteTree(Path dir) throws IOException {
    try (var paths = Files.walk(dir)) {
      for (Path path : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.delete(path);
      }
    }
  }
}
