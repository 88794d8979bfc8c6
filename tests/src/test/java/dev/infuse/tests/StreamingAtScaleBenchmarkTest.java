package dev.infuse.tests;

import static org.assertj.core.api.Assertions.assertThat;

import dev.infuse.jobs.SparkTestSession;
import dev.infuse.jobs.contract.Contracts;
import dev.infuse.jobs.io.Warehouse;
import dev.infuse.udfs.bench.BenchResult;
import dev.infuse.udfs.bench.BenchResults;
import dev.infuse.udfs.bench.BenchSizes;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Inputs far larger than the heap: {@code build-shards} over a million generated texts (dedup,
 * decontamination, all three formats) and {@code ingest} of a 1 GB GSM8K file, each a child process
 * of {@code bin/infuse} capped at a 2 GB heap (in local mode the executors share the driver's JVM,
 * so the cap holds for both). Records wall time and the process's peak resident memory (heap,
 * metaspace, native tokenizers and buffers together); asserts that both complete and that every
 * input row is accounted for. Run {@code bin/infuse bench --only StreamingAtScaleBenchmarkTest}; by
 * default 60,000 texts and 64 MB, which only show that the job completes under the cap, to keep the
 * whole {@code bench} under 20 minutes; {@code bin/infuse bench --scale} runs the proof, a million
 * texts and 1 GB, and {@code -Dbench.scaleTexts} and {@code -Dbench.ingestMegabytes} set either
 * size.
 */
@Tag("benchmark")
class StreamingAtScaleBenchmarkTest {
  private static final int TEXTS = BenchSizes.size("bench.scaleTexts", 60_000, 1_000_000);
  private static final int INGEST_MB = BenchSizes.size("bench.ingestMegabytes", 64, 1024);
  private static final String HEAP = "-Xmx2g";

  /** A 2 GB heap plus what a JVM with Spark and native tokenizers needs beside it. */
  private static final double RSS_GOAL_GB = 3.0;

  @Test
  void buildShardsOverAMillionTexts() throws Exception {
    SparkSession spark = SparkTestSession.get();
    Path dir = SparkTestSession.tempDir("scale-shards");
    String warehouse = dir.resolve("warehouse").toString();
    // Texts of 20 to 80 words drawn by hash from a small vocabulary: generated on the executors, so
    // the test JVM never holds them either.
    Dataset<Row> documents =
        spark
            .range(TEXTS)
            .selectExpr(
                "format_string('scale:%08d', id) AS doc_id",
                "'scale' AS corpus",
                "CAST(NULL AS STRING) AS title",
                "concat_ws(' ', transform(sequence(1, 20 + CAST(pmod(hash(id), 61) AS INT)),"
                    + " i -> element_at(split('"
                    + VOCABULARY
                    + "', ' '), 1 + CAST(pmod(hash(id, i), "
                    + VOCABULARY.split(" ").length
                    + ") AS INT)))) AS text",
                "'generated' AS source",
                "CAST(NULL AS STRING) AS license",
                "CAST(map() AS map<string,string>) AS meta");
    new Warehouse(spark, warehouse).append(Contracts.load("documents"), documents);
    // Benchmark questions to decontaminate against, as a real build has.
    SparkTestSession.CliResult questions =
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
    assertThat(questions.code()).as(questions.toString()).isZero();
    Path mixture = dir.resolve("once.yaml");
    Files.writeString(
        mixture,
        """
        name: scale
        version: 1
        total_tokens: 0
        qa_fraction: 0.5
        replay_fraction: 0.0
        document_weights: {documents: 1.0}
        max_epochs: 1
        seed: 1
        """);
    LauncherChild run =
        run(
            dir,
            "build-shards",
            "--warehouse",
            warehouse,
            "--mixture",
            mixture.toString(),
            "--output",
            "scale",
            "--set",
            "run.progress_interval_seconds=0");
    Row counts =
        new Warehouse(spark, warehouse)
            .read("runs")
            .filter("job = 'build-shards'")
            .selectExpr("counts")
            .head();
    System.out.printf(
        Locale.ROOT,
        "build-shards, %,d texts, %s: %.0f s, peak RSS %.2f GB; runs.counts %s%n",
        TEXTS,
        HEAP,
        run.seconds(),
        run.peakRssGb(),
        counts.get(0));
    record("build-shards, " + String.format(Locale.ROOT, "%,d texts", TEXTS), run);
  }

  @Test
  void ingestAGigabyteFile() throws Exception {
    SparkSession spark = SparkTestSession.get();
    Path dir = SparkTestSession.tempDir("scale-ingest");
    Path input = dir.resolve("gsm8k_train.jsonl");
    long lines = writeGsm8k(input, INGEST_MB * 1024L * 1024L);
    String warehouse = dir.resolve("warehouse").toString();
    LauncherChild run =
        run(
            dir,
            "ingest",
            "--format",
            "gsm8k",
            "--input",
            input.toString(),
            "--warehouse",
            warehouse,
            "--set",
            "run.progress_interval_seconds=0");
    long questions = new Warehouse(spark, warehouse).read("questions").count();
    assertThat(questions).as("every generated line became a question").isEqualTo(lines);
    System.out.printf(
        Locale.ROOT,
        "ingest, %,d MB (%,d lines), %s: %.0f s, peak RSS %.2f GB%n",
        Files.size(input) / (1024 * 1024),
        lines,
        HEAP,
        run.seconds(),
        run.peakRssGb());
    record(
        String.format(Locale.ROOT, "ingest, %,d MB GSM8K file (%,d lines)", INGEST_MB, lines), run);
    Files.delete(input);
  }

  private static void record(String work, LauncherChild run) {
    BenchResults.record(
        new BenchResult(
            work + ", " + HEAP + " heap",
            String.format(
                Locale.ROOT,
                "completed in %.0f s, peak RSS %.2f GB",
                run.seconds(),
                run.peakRssGb()),
            "",
            run.peakRssGb(),
            "GB",
            false,
            RSS_GOAL_GB,
            String.format(
                Locale.ROOT,
                "one child process of bin/infuse, driver and local executors in one JVM capped at"
                    + " %s; peak RSS from /proc VmHWM; %d cores",
                HEAP,
                Runtime.getRuntime().availableProcessors())));
  }

  /** Runs {@code bin/infuse args} at a 2 GB heap, which dies at once if it runs out. */
  private static LauncherChild run(Path dir, String... args)
      throws IOException, InterruptedException {
    Map<String, String> env = new HashMap<>();
    env.put("INFUSE_JAVA_OPTS", HEAP + " -XX:+ExitOnOutOfMemoryError");
    env.put("INFUSE_REBUILD", null);
    return LauncherChild.run(dir, env, 45, args);
  }

  /** GSM8K-format lines with distinct questions up to {@code bytes}; returns how many. */
  private static long writeGsm8k(Path file, long bytes) throws IOException {
    SplittableRandom random = new SplittableRandom(7);
    String[] words = VOCABULARY.split(" ");
    long written = 0;
    long lines = 0;
    try (BufferedWriter writer = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
      StringBuilder line = new StringBuilder(512);
      while (written < bytes) {
        line.setLength(0);
        line.append("{\"question\": \"Question ").append(lines).append(':');
        int length = 20 + random.nextInt(40);
        for (int w = 0; w < length; w++) {
          line.append(' ').append(words[random.nextInt(words.length)]);
        }
        int a = random.nextInt(1000);
        int b = random.nextInt(1000);
        line.append("?\", \"answer\": \"")
            .append(a)
            .append(" + ")
            .append(b)
            .append(" = <<")
            .append(a)
            .append('+')
            .append(b)
            .append('=')
            .append(a + b)
            .append(">>")
            .append(a + b)
            .append(".\\n#### ")
            .append(a + b)
            .append("\"}\n");
        writer.write(line.toString());
        written += line.length();
        lines++;
      }
    }
    return lines;
  }

  private static final String VOCABULARY =
      "the of and a to in is was that for it with as his on be at by had are but from or have an"
          + " they which one were you her all she there would their we him been has when who will"
          + " more no if out so said what up its about into than them can only other new some"
          + " could time these two may then do first any my now such like our over man me even"
          + " most made after also did many before must through back years where much your way"
          + " well down should because each just those people how too little state good very make"
          + " world still own see men work long get here between both life being under never day"
          + " same another know while last might us great old year off come since against go came"
          + " right used take three river stone market winter letter garden engine doctor";
}
