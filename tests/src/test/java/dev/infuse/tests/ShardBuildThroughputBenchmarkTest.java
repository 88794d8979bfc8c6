package dev.infuse.tests;

import ai.djl.huggingface.tokenizers.Encoding;
import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import dev.infuse.jobs.SparkTestSession;
import dev.infuse.jobs.SparkTestSession.CliResult;
import dev.infuse.jobs.contract.Contracts;
import dev.infuse.jobs.io.Warehouse;
import dev.infuse.udfs.bench.BenchResult;
import dev.infuse.udfs.bench.BenchResults;
import dev.infuse.udfs.bench.BenchSizes;
import dev.infuse.udfs.text.HuggingFaceTextTokenizer;
import dev.infuse.udfs.text.Tokenizers;
import java.io.ByteArrayInputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Tokenize + pack through the {@code build-shards} job (read the table, tokenize on the executors,
 * sample, shuffle by shard, sort, pack, write Parquet) against a raw HuggingFace {@code
 * batchEncode} of the same texts in the same JVM; then the whole job (dedup, decontamination, all
 * three formats) at 1×, 2×, 4× and 8× a base size. Prints figures and records the ratio (goal ≥
 * 0.80) and each size's cost against linear (goal ≤ 1.15); asserts nothing about time. Run it with
 * {@code bin/infuse bench --only ShardBuildThroughputBenchmarkTest}, or:
 *
 * <pre>
 * mvn -o -B -pl udfs,jobs,tests package -Dinfuse.excludedGroups= -Dgroups=benchmark -Dtest=ShardBuildThroughputBenchmarkTest -Dsurefire.failIfNoSpecifiedTests=false
 * </pre>
 *
 * <p>Sizes: {@code -Dbench.shardTexts} (default 20000, 100000 with {@code --scale}) for the
 * comparison, {@code -Dbench.shardBase} (default 5000) for the growth series, {@code
 * -Dbench.shardGrowth=false} to skip it.
 */
@Tag("benchmark")
class ShardBuildThroughputBenchmarkTest {
  private static final int TEXTS = BenchSizes.size("bench.shardTexts", 20_000, 100_000);
  private static final int BASE = Integer.getInteger("bench.shardBase", 5_000);
  private static final boolean GROWTH =
      Boolean.parseBoolean(System.getProperty("bench.shardGrowth", "true"));
  private static final String[] COMMON_WORDS =
      ("the of and a to in is was that for it with as his on be at by had"
              + " are but from or have an they which one were you her all she there would their we him been has when who will"
              + " more no if out so said what up its about into than them can only other new some could time these two may"
              + " then do first any my now such like our over man me even most made after also did many before must through"
              + " back years where much your way well down should because each just those people how too little state good"
              + " very make world still own see men work long get here between both life being under never day same another"
              + " know while last might us great old year off come since against go came right used take three")
          .split(" ");

  @Test
  void printTokenizePackRatioAndCostGrowth() throws Exception {
    SparkSession spark = SparkTestSession.get();
    Path home = SparkTestSession.tempDir("shard-bench-home");
    Files.writeString(
        home.resolve("once.yaml"),
        """
        name: bench
        version: 1
        total_tokens: 0
        qa_fraction: 0.5
        replay_fraction: 0.0
        document_weights: {documents: 1.0}
        max_epochs: 1
        seed: 1
        """);
    List<String> texts = texts(TEXTS, 1);
    String warehouse = warehouse(spark, texts);
    HuggingFaceTokenizer raw =
        HuggingFaceTokenizer.newInstance(
            new ByteArrayInputStream(Tokenizers.defaultTokenizerJson()),
            HuggingFaceTextTokenizer.RAW_OPTIONS);
    String[] tokenizeAndPack = {
      "--set",
      "shards.dedup.enabled=false",
      "--set",
      "shards.decontamination.enabled=false",
      "--formats",
      "parquet",
      "--sequence-length",
      "1024"
    };

    // Warm up both paths, then alternate them so that machine load hits both alike.
    build(warehouse, home, "warm", tokenizeAndPack);
    rawEncode(raw, texts);
    double[] jobRates = new double[3];
    double[] rawRates = new double[3];
    long tokens = 0;
    for (int round = 0; round < 3; round++) {
      long started = System.nanoTime();
      build(warehouse, home, "round" + round, tokenizeAndPack);
      jobRates[round] = texts.size() / ((System.nanoTime() - started) / 1e9);
      started = System.nanoTime();
      tokens = rawEncode(raw, texts);
      rawRates[round] = texts.size() / ((System.nanoTime() - started) / 1e9);
    }
    Arrays.sort(jobRates);
    Arrays.sort(rawRates);
    System.out.printf(
        Locale.ROOT,
        "%nbuild-shards tokenize + pack (no dedup or decontamination, Parquet only), %d texts,"
            + " %d tokens, Spark %s, %d cores: job %.0f texts/s, raw batchEncode %.0f texts/s (medians of 3), ratio %.2f%n",
        texts.size(),
        tokens,
        spark.sparkContext().master(),
        Runtime.getRuntime().availableProcessors(),
        jobRates[1],
        rawRates[1],
        jobRates[1] / rawRates[1]);
    BenchResults.record(
        new BenchResult(
            String.format(Locale.ROOT, "tokenize + pack (build-shards), %,d texts", texts.size()),
            String.format(Locale.ROOT, "%,.0f texts/s", jobRates[1]),
            String.format(Locale.ROOT, "raw HF batchEncode %,.0f texts/s", rawRates[1]),
            jobRates[1] / rawRates[1],
            "ratio",
            true,
            0.80,
            String.format(
                Locale.ROOT,
                "medians of 3 rounds, no dedup or decontamination, Parquet only, %d tokens, %d"
                    + " cores",
                tokens,
                Runtime.getRuntime().availableProcessors())));

    // The whole job as users run it, at growing sizes.
    double base = 0;
    double[] grownSeconds = new double[4];
    int growthStep = 0;
    for (int factor : GROWTH ? new int[] {1, 2, 4, 8} : new int[0]) {
      String grown = warehouse(spark, texts(BASE * factor, 2));
      long started = System.nanoTime();
      build(grown, home, "full", new String[0]);
      double seconds = (System.nanoTime() - started) / 1e9;
      base = factor == 1 ? seconds : base;
      System.out.printf(
          Locale.ROOT,
          "build-shards, all stages and formats, %dx = %d texts: %.1f s, %.2f of linear%n",
          factor,
          BASE * factor,
          seconds,
          seconds / (base * factor));
      grownSeconds[growthStep++] = seconds;
    }
    if (growthStep == 4) {
      // As in CostGrowthBenchmarkTest: 8x against the line fitted through 1x, 2x and 4x.
      double trend =
          CostGrowthBenchmarkTest.linearAt(
              8,
              new double[] {1, 2, 4},
              new double[] {grownSeconds[0], grownSeconds[1], grownSeconds[2]});
      BenchResults.record(
          new BenchResult(
              "cost growth 1x to 8x, build-shards",
              String.format(Locale.ROOT, "8x: %.1f s", grownSeconds[3]),
              String.format(Locale.ROOT, "linear trend of 1x-4x at 8x: %.1f s", trend),
              grownSeconds[3] / trend,
              "x linear",
              false,
              1.15,
              String.format(
                  Locale.ROOT,
                  "whole job, all stages and formats; 1x = %,d texts; wall %.1f / %.1f / %.1f /"
                      + " %.1f s at 1x/2x/4x/8x; %d cores",
                  BASE,
                  grownSeconds[0],
                  grownSeconds[1],
                  grownSeconds[2],
                  grownSeconds[3],
                  Runtime.getRuntime().availableProcessors())));
    }
  }

  private static void build(String warehouse, Path home, String output, String[] more) {
    List<String> args =
        new ArrayList<>(
            List.of(
                "build-shards",
                "--warehouse",
                warehouse,
                "--mixture",
                home.resolve("once.yaml").toString(),
                "--output",
                output,
                "--set",
                "run.progress_interval_seconds=0"));
    args.addAll(List.of(more));
    CliResult result = SparkTestSession.cli(args.toArray(String[]::new));
    if (result.code() != 0) {
      throw new IllegalStateException("build-shards failed: " + result);
    }
  }

  private static long rawEncode(HuggingFaceTokenizer raw, List<String> texts) {
    long tokens = 0;
    for (int from = 0; from < texts.size(); from += 1000) {
      for (Encoding encoding :
          raw.batchEncode(texts.subList(from, Math.min(texts.size(), from + 1000)), false, false)) {
        tokens += encoding.getIds().length;
      }
    }
    return tokens;
  }

  /**
   * A warehouse whose documents table holds {@code texts}, and a questions table for
   * decontamination.
   */
  private static String warehouse(SparkSession spark, List<String> texts) {
    String root = SparkTestSession.tempDir("shard-bench").toString();
    Warehouse warehouse = new Warehouse(spark, root);
    List<Row> rows = new ArrayList<>(texts.size());
    for (int i = 0; i < texts.size(); i++) {
      rows.add(
          RowFactory.create(
              String.format(Locale.ROOT, "bench:%07d", i),
              "bench",
              null,
              texts.get(i),
              "generated",
              null,
              scala.collection.immutable.Map$.MODULE$.empty()));
    }
    warehouse.append(
        Contracts.load("documents"),
        spark
            .createDataFrame(rows, Contracts.load("documents").schema())
            .repartition(spark.sparkContext().defaultParallelism()));
    warehouse.append(
        Contracts.load("questions"),
        spark.createDataFrame(
            List.of(
                RowFactory.create(
                    "bench:q1",
                    null,
                    "quality",
                    "dev",
                    texts.get(0).substring(0, Math.min(200, texts.get(0).length())),
                    List.of("yes", "no"),
                    "A",
                    0,
                    "mcq",
                    List.of(),
                    java.util.Map.of())),
            Contracts.load("questions").schema()));
    return root;
  }

  private static List<String> texts(int count, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    List<String> texts = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      StringBuilder text = new StringBuilder();
      int length = 50 + random.nextInt(250);
      for (int w = 0; w < length; w++) {
        text.append(w == 0 ? "" : " ").append(COMMON_WORDS[random.nextInt(COMMON_WORDS.length)]);
      }
      texts.add(text.append('.').toString());
    }
    return texts;
  }
}
