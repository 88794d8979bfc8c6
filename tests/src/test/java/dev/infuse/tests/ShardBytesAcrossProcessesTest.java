package dev.infuse.tests;

import static org.assertj.core.api.Assertions.assertThat;

import dev.infuse.jobs.SparkTestSession;
import dev.infuse.jobs.io.Warehouse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.Test;

/**
 * The README's claim as a user would test it: the same config gives byte-identical shards. Two
 * {@code bin/infuse build-shards} processes (so two JVMs, with their own hash seeds) over the demo
 * warehouse, one on {@code local[1]} with one shuffle partition and one on {@code local[2]} with
 * seven shuffle partitions and parallelism five, each cutting several shards: every file under
 * every format directory must have the same name and the same bytes.
 */
class ShardBytesAcrossProcessesTest {
  private static final List<String> FORMATS = List.of("parquet", "jsonl", "megatron");

  @Test
  void twoProcessesWithDifferentPartitioningsWriteTheSameBytes() throws Exception {
    String warehouse = SparkTestSession.copyOf(DemoWarehouse.get(), "shard-bytes");
    String one =
        buildShards(
            warehouse,
            "bytes/one",
            "spark.master=local[1]",
            "spark.conf.spark.sql.shuffle.partitions=1");
    String other =
        buildShards(
            warehouse,
            "bytes/other",
            "spark.master=local[2]",
            "spark.conf.spark.sql.shuffle.partitions=7",
            "spark.conf.spark.default.parallelism=5");

    Map<String, String> first = checksums(Path.of(warehouse, "bytes/one"));
    Map<String, String> second = checksums(Path.of(warehouse, "bytes/other"));
    for (String format : FORMATS) {
      assertThat(first.keySet().stream().filter(f -> f.startsWith(format + "/")).count())
          .as(format + " files (several shards)")
          .isGreaterThan(format.equals("megatron") ? 2 : 1);
    }
    assertThat(second.keySet()).as("file names").isEqualTo(first.keySet());
    for (String file : first.keySet()) {
      assertThat(second.get(file)).as(file + "\n" + one + "\n" + other).isEqualTo(first.get(file));
    }

    // The two runs really ran under the two settings.
    List<Row> runs =
        new Warehouse(SparkTestSession.get(), warehouse)
            .read("runs")
            .filter("job = 'build-shards' AND config_json LIKE '%bytes/%'")
            .collectAsList();
    assertThat(runs)
        .extracting(r -> r.<String>getAs("config_json"))
        .anySatisfy(c -> assertThat(c).contains("local[1]").contains("bytes/one"))
        .anySatisfy(c -> assertThat(c).contains("local[2]").contains("bytes/other"));
  }

  /** Runs build-shards in its own JVM through bin/infuse; returns what it printed. */
  private static String buildShards(String warehouse, String output, String... settings)
      throws Exception {
    List<String> command =
        new ArrayList<>(
            List.of(
                SparkTestSession.repoRoot().resolve("bin/infuse").toString(),
                "build-shards",
                "--warehouse",
                warehouse,
                "--output",
                output,
                "--set",
                "shards.tokens_per_shard=12000"));
    for (String setting : settings) {
      command.add("--set");
      command.add(setting);
    }
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
    builder
        .environment()
        .put("INFUSE_JAVA_OPTS", "-Xmx1500m " + SparkTestSession.FAST_SMALL_JOBS_JAVA_OPTS);
    Process process = builder.start();
    String printed = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(300, TimeUnit.SECONDS)).as(printed).isTrue();
    assertThat(process.exitValue()).as(printed).isZero();
    return printed;
  }

  /** Every file under the format directories, by path relative to the output, to its SHA-256. */
  private static Map<String, String> checksums(Path output)
      throws IOException, NoSuchAlgorithmException {
    Map<String, String> sums = new TreeMap<>();
    for (String format : FORMATS) {
      try (Stream<Path> files = Files.walk(output.resolve(format))) {
        for (Path file : files.filter(Files::isRegularFile).toList()) {
          sums.put(
              output.relativize(file).toString(),
              HexFormat.of()
                  .formatHex(
                      MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file))));
        }
      }
    }
    return sums;
  }
}
