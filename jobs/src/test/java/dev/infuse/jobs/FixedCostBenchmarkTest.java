package dev.infuse.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.infuse.jobs.SparkTestSession.CliResult;
import dev.infuse.udfs.bench.BenchResult;
import dev.infuse.udfs.bench.BenchResults;
import dev.infuse.udfs.bench.BenchSizes;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerJobEnd;
import org.apache.spark.scheduler.SparkListenerJobStart;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The fixed cost of one recorded job inside a session: a small {@code ingest}, {@code chunk},
 * {@code answer} and {@code score} on the QuALITY sample (a few documents, a few questions), each
 * on a fresh warehouse and, with {@code --scale}, once more over the same input (a rerun that
 * changes nothing). Prints the median wall time of each, the Spark jobs it ran, and the call sites
 * whose jobs took longest ({@code -Dbench.callers=true} adds the Infuse and Delta frames that
 * started each), and records each first run's time (goal ≤ 2 s); never gates. Run with {@code
 * bin/infuse bench --only FixedCostBenchmarkTest}, or {@code mvn -pl jobs -am verify
 * -Dinfuse.excludedGroups= -Dgroups=benchmark -Dtest=FixedCostBenchmarkTest
 * -Dsurefire.failIfNoSpecifiedTests=false}.
 */
@Tag("benchmark")
class FixedCostBenchmarkTest {
  private static final int REPEATS = 3;

  @Test
  void smallJobsInOneSession() {
    SparkSession spark = SparkTestSession.get();
    JobCounter counter = new JobCounter();
    spark.sparkContext().addSparkListener(counter);
    // Warm-up: class loading, JIT and the embedder's first load are not a job's fixed cost.
    runChain(counter, null);

    Map<String, List<Measured>> measured = new LinkedHashMap<>();
    for (int i = 0; i < REPEATS; i++) {
      runChain(counter, measured);
    }
    System.out.println("fixed cost of one recorded job (median of " + REPEATS + ")");
    System.out.printf(Locale.ROOT, "%-14s %9s %11s%n", "job", "wall s", "spark jobs");
    for (Map.Entry<String, List<Measured>> entry : measured.entrySet()) {
      double[] seconds =
          entry.getValue().stream().mapToDouble(Measured::seconds).sorted().toArray();
      long[] jobs = entry.getValue().stream().mapToLong(Measured::sparkJobs).sorted().toArray();
      System.out.printf(
          Locale.ROOT,
          "%-14s %9.2f %11d%n",
          entry.getKey(),
          seconds[seconds.length / 2],
          jobs[jobs.length / 2]);
      // The goal is about a job on a fresh warehouse; the reruns print only.
      if (!entry.getKey().endsWith("(rerun)")) {
        BenchResults.record(
            new BenchResult(
                "fixed cost in a session: " + entry.getKey(),
                String.format(Locale.ROOT, "%.2f s", seconds[seconds.length / 2]),
                "",
                seconds[seconds.length / 2],
                "s",
                false,
                2,
                String.format(
                    Locale.ROOT,
                    "median of %d, QuALITY sample, fresh warehouse, %d Spark jobs, %d cores",
                    REPEATS,
                    jobs[jobs.length / 2],
                    Runtime.getRuntime().availableProcessors())));
      }
    }
    System.out.println(
        "slowest call sites by job (all " + REPEATS + " timed runs together): total s, jobs, site");
    counter.bySite.entrySet().stream()
        .sorted((a, b) -> Long.compare(b.getValue()[0].get(), a.getValue()[0].get()))
        .limit(60)
        .forEach(
            e ->
                System.out.printf(
                    Locale.ROOT,
                    "  %7.2f %5d  %s%n",
                    e.getValue()[0].get() / 1e3,
                    e.getValue()[1].get(),
                    e.getKey()));
    spark.sparkContext().removeSparkListener(counter);
  }

  private static void runChain(JobCounter counter, Map<String, List<Measured>> measured) {
    String warehouse = SparkTestSession.tempDir("fixed-cost").toString();
    String input = QualitySample.file().toString();
    List<String[]> steps =
        List.of(
            new String[] {"ingest", "--format", "quality", "--input", input},
            new String[] {"chunk"},
            new String[] {"answer", "--benchmark", "quality", "--max-questions", "4"},
            new String[] {"score"});
    // The reruns print only, so the default run leaves them to --scale.
    for (String suffix : BenchSizes.atScale() ? List.of("", " (rerun)") : List.of("")) {
      for (String[] step : steps) {
        List<String> args = new ArrayList<>(Arrays.asList(step));
        args.addAll(List.of("--warehouse", warehouse));
        counter.measuring = measured != null;
        counter.step = step[0] + suffix;
        long jobsBefore = counter.jobs.get();
        long started = System.nanoTime();
        CliResult result = SparkTestSession.cli(args.toArray(String[]::new));
        double seconds = (System.nanoTime() - started) / 1e9;
        counter.measuring = false;
        assertThat(result.code()).as(result.toString()).isZero();
        if (measured != null) {
          measured
              .computeIfAbsent(step[0] + suffix, k -> new ArrayList<>())
              .add(new Measured(seconds, counter.jobs.get() - jobsBefore));
        }
      }
    }
  }

  private record Measured(double seconds, long sparkJobs) {}

  /** Counts Spark jobs, and their wall time by the user-code call site that started them. */
  private static final class JobCounter extends SparkListener {
    final AtomicLong jobs = new AtomicLong();
    final Map<String, AtomicLong[]> bySite = new ConcurrentHashMap<>();
    final Map<Integer, Long> startedAt = new ConcurrentHashMap<>();
    final Map<Integer, String> siteOf = new ConcurrentHashMap<>();
    volatile boolean measuring;
    volatile String step = "";

    @Override
    public void onJobStart(SparkListenerJobStart start) {
      jobs.incrementAndGet();
      if (measuring) {
        // The result stage's name is the action's call site: "collectAsList at Foo.java:42"; its
        // details are the stack that started it.
        var resultStage =
            scala.collection.JavaConverters.seqAsJavaList(start.stageInfos()).stream()
                .max(
                    java.util.Comparator.comparingInt(
                        org.apache.spark.scheduler.StageInfo::stageId));
        String site = resultStage.map(org.apache.spark.scheduler.StageInfo::name).orElse("?");
        if (resultStage.isPresent() && Boolean.getBoolean("bench.callers")) {
          site +=
              java.util.Arrays.stream(resultStage.get().details().split("\n"))
                  .filter(
                      l ->
                          l.contains("dev.infuse") && !l.contains("Test")
                              || l.contains("delta")
                                  && !l.contains("Logging")
                                  && !l.contains("Frame"))
                  .limit(6)
                  .map(l -> " < " + l.strip().replace("org.apache.spark.sql.delta.", ""))
                  .collect(java.util.stream.Collectors.joining());
        }
        String description = start.properties().getProperty("spark.job.description");
        if (description != null) {
          site = site + " [" + description.replaceAll("\\d+", "N") + "]";
        }
        startedAt.put(start.jobId(), start.time());
        siteOf.put(start.jobId(), step + ": " + site);
      }
    }

    @Override
    public void onJobEnd(SparkListenerJobEnd end) {
      Long started = startedAt.remove(end.jobId());
      String site = siteOf.remove(end.jobId());
      if (started != null) {
        AtomicLong[] totals =
            bySite.computeIfAbsent(
                site, k -> new AtomicLong[] {new AtomicLong(), new AtomicLong()});
        totals[0].addAndGet(end.time() - started);
        totals[1].incrementAndGet();
      }
    }
  }
}
