package dev.infuse.jobs.spark;

import java.util.Map;
import java.util.function.Function;
import org.apache.spark.SparkConf;
import org.apache.spark.sql.SparkSession;
import scala.Option;

/**
 * Gets the SparkSession a job runs in. When the platform already owns one (spark-submit, EMR,
 * Databricks, a notebook, a test), that one is used as it is; Infuse only creates a session for
 * local runs, with Delta enabled and the given master.
 */
public final class SparkSessions {
  private SparkSessions() {}

  /**
   * Spark settings for jobs over tiny tables, as in the demo and the tests: each job is dozens of
   * small queries, and on two cores compiling their generated code costs more than running them.
   * Warm, an ingest of the GSM8K and QuALITY samples and a chunk took 63.7 s with Spark's defaults
   * and 26 s with these (issue 19). Large inputs need Spark's defaults, which every other run
   * keeps.
   *
   * <p>Delta's data skipping is off too, and so is the file statistics it needs: every scan and
   * every MERGE of a table first parses the statistics of all its files in a Spark query over the
   * snapshot, a third of the driver's time in the demo, and a table of a few files has nothing to
   * skip. A small ingest, chunk, answer and score together took 17.6 s with them and 13.8 s without
   * ({@code FixedCostBenchmarkTest}, medians of 3).
   */
  public static final Map<String, String> SMALL_JOBS_CONF =
      Map.of(
          "spark.sql.adaptive.enabled", "false",
          "spark.sql.codegen.wholeStage", "false",
          "spark.sql.codegen.factoryMode", "NO_CODEGEN",
          "spark.databricks.delta.stats.skipping", "false",
          "spark.databricks.delta.stats.collect", "false");

  /**
   * Hadoop's {@code file:} file systems without a child process per file (see {@link
   * ForklessLocalFileSystem}), for sessions Infuse starts on a local master: a warm ingest-to-score
   * chain forked the JVM about 500 times. A cluster keeps Hadoop's own, since its executors load
   * file systems before they have the application jar.
   */
  public static final Map<String, String> LOCAL_FILE_SYSTEM_CONF =
      Map.of(
          "spark.hadoop.fs.file.impl", ForklessLocalFileSystem.class.getName(),
          "spark.hadoop.fs.AbstractFileSystem.file.impl",
              ForklessLocalFileSystem.Fs.class.getName());

  /** A session and whether Infuse created it (and so may stop it). */
  public record Session(SparkSession spark, boolean created) {}

  /**
   * Runs {@code body} in the platform's session, or in one created for it (and stopped after) when
   * there is none.
   */
  public static <T> T with(
      String appName, String master, Map<String, String> conf, Function<SparkSession, T> body) {
    Session session = getOrCreate(appName, master, conf);
    try {
      return body.apply(session.spark());
    } finally {
      if (session.created()) {
        session.spark().stop();
      }
    }
  }

  public static Session getOrCreate(String appName, String master, Map<String, String> conf) {
    Option<SparkSession> active = SparkSession.getActiveSession();
    if (active.isDefined()) {
      return new Session(active.get(), false);
    }
    Option<SparkSession> existing = SparkSession.getDefaultSession();
    if (existing.isDefined()) {
      return new Session(existing.get(), false);
    }
    SparkConf sparkConf = new SparkConf();
    SparkSession.Builder builder = SparkSession.builder().appName(appName);
    // spark-submit passes its master as a system property that SparkConf picks up; respect it.
    if (!sparkConf.contains("spark.master")) {
      builder.master(master);
    }
    builder
        .config("spark.sql.extensions", "io.delta.sql.DeltaSparkSessionExtension")
        .config(
            "spark.sql.catalog.spark_catalog", "org.apache.spark.sql.delta.catalog.DeltaCatalog")
        .config("spark.sql.session.timeZone", "UTC")
        // Keys in JSON output always present, so `infuse sql --json` rows have a stable shape.
        .config("spark.sql.jsonGenerator.ignoreNullFields", "false")
        .config("spark.ui.showConsoleProgress", "false");
    if (!sparkConf.contains("spark.master") && master.startsWith("local")) {
      builder
          .config("spark.driver.host", "127.0.0.1")
          .config("spark.driver.bindAddress", "127.0.0.1")
          .config(
              "spark.sql.shuffle.partitions",
              String.valueOf(Math.max(4, Runtime.getRuntime().availableProcessors() * 2)))
          .config("spark.databricks.delta.snapshotPartitions", "4");
      LOCAL_FILE_SYSTEM_CONF.forEach(
          (key, value) -> {
            if (!sparkConf.contains(key)) {
              builder.config(key, value);
            }
          });
    }
    conf.forEach(builder::config);
    SparkSession spark = builder.getOrCreate();
    spark.sparkContext().setLogLevel("WARN");
    return new Session(spark, true);
  }
}
