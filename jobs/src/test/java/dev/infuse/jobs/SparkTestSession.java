package dev.infuse.jobs;

import dev.infuse.jobs.spark.SparkSessions;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.spark.sql.SparkSession;

/**
 * The one SparkSession of a test JVM: local[2], UI off, loopback driver, few partitions. Jobs under
 * test find it as the active session and use it instead of creating their own.
 */
public final class SparkTestSession {
  private static SparkSession spark;

  private SparkTestSession() {}

  /**
   * {@link SparkSessions#SMALL_JOBS_CONF} as Java options, for tests that run {@code bin/infuse} as
   * a process (SparkConf reads {@code spark.*} system properties): {@code INFUSE_JAVA_OPTS="-Xmx1g
   * " + this}.
   */
  public static final String FAST_SMALL_JOBS_JAVA_OPTS =
      SparkSessions.SMALL_JOBS_CONF.entrySet().stream()
          .map(e -> "-D" + e.getKey() + "=" + e.getValue())
          .collect(java.util.stream.Collectors.joining(" "));

  public static synchronized SparkSession get() {
    if (spark == null) {
      spark =
          SparkSession.builder()
              .master("local[2]")
              .appName("infuse-tests")
              .config("spark.ui.enabled", "false")
              .config("spark.ui.showConsoleProgress", "false")
              .config("spark.driver.host", "127.0.0.1")
              .config("spark.driver.bindAddress", "127.0.0.1")
              .config("spark.sql.shuffle.partitions", "2")
              // Spark sizes memory pages from the heap (64 MB each here), and every hash aggregate
              // with data takes one. A 26-minute suite once ran a task out of execution memory
              // ("Unable to acquire 262144 bytes, got 0"); tiny fixtures need small pages.
              .config("spark.buffer.pageSize", "4m")
              .config("spark.default.parallelism", "2")
              // Tiny fixtures: tests that start bin/infuse pass FAST_SMALL_JOBS_JAVA_OPTS.
              .config(java.util.Map.<String, Object>copyOf(SparkSessions.SMALL_JOBS_CONF))
              .config(java.util.Map.<String, Object>copyOf(SparkSessions.LOCAL_FILE_SYSTEM_CONF))
              .config("spark.sql.session.timeZone", "UTC")
              .config("spark.sql.jsonGenerator.ignoreNullFields", "false")
              .config("spark.databricks.delta.snapshotPartitions", "2")
              .config("spark.sql.extensions", "io.delta.sql.DeltaSparkSessionExtension")
              .config(
                  "spark.sql.catalog.spark_catalog",
                  "org.apache.spark.sql.delta.catalog.DeltaCatalog")
              .config("spark.sql.warehouse.dir", tempDir("spark-warehouse").toString())
              .getOrCreate();
      spark.sparkContext().setLogLevel("ERROR");
    }
    SparkSession.setActiveSession(spark);
    return spark;
  }

  /**
   * The repository root: -Dinfuse.repo.root (surefire sets it), else the nearest parent with udfs/.
   */
  public static Path repoRoot() {
    String root = System.getProperty("infuse.repo.root");
    if (root != null && Files.isDirectory(Path.of(root, "udfs"))) {
      return Path.of(root).toAbsolutePath().normalize();
    }
    Path dir = Path.of("").toAbsolutePath();
    while (dir != null && !Files.isDirectory(dir.resolve("udfs"))) {
      dir = dir.getParent();
    }
    if (dir == null) {
      throw new IllegalStateException(
          "cannot find the repository root above " + Path.of("").toAbsolutePath());
    }
    return dir;
  }

  /** {@code ../shared/benchmarks/<name>} next to the repository. */
  public static Path benchmark(String name) {
    return repoRoot().resolve("../shared/benchmarks").resolve(name).normalize();
  }

  public static Path tempDir(String prefix) {
    try {
      return Files.createTempDirectory("infuse-" + prefix);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * A fresh copy of a warehouse built once for a whole test class, so a test that writes to it
   * leaves the shared fixture as it was. Delta logs name data files relative to the table, so the
   * copy is a warehouse of its own.
   */
  public static String copyOf(String warehouse, String prefix) {
    Path source = Path.of(warehouse);
    Path target = tempDir(prefix);
    try (var paths = Files.walk(source)) {
      for (Path path : (Iterable<Path>) paths::iterator) {
        Path to = target.resolve(source.relativize(path).toString());
        if (Files.isDirectory(path)) {
          Files.createDirectories(to);
        } else {
          Files.copy(path, to);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return target.toString();
  }

  /** Runs the CLI in this JVM against the shared session, capturing its output. */
  public static CliResult cli(String... args) {
    get();
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    System.setProperty("infuse.home", repoRoot().toString());
    int code = Main.execute(args, new PrintWriter(out), new PrintWriter(err));
    return new CliResult(code, out.toString(), err.toString());
  }

  public record CliResult(int code, String out, String err) {
    @Override
    public String toString() {
      return "exit " + code + "\n--- stdout\n" + out + "--- stderr\n" + err;
    }
  }
}
