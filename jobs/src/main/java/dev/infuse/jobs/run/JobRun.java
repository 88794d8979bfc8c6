package dev.infuse.jobs.run;

import dev.infuse.jobs.config.ConfigJson;
import dev.infuse.jobs.config.InfuseConfig;
import dev.infuse.jobs.contract.Contracts;
import dev.infuse.jobs.io.Quarantine;
import dev.infuse.jobs.io.Warehouse;
import dev.infuse.jobs.io.WriteResult;
import dev.infuse.jobs.spark.SparkRows;
import java.io.PrintWriter;
import java.sql.Timestamp;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;

/**
 * One run of one job: its id, its config, where it writes, and the row it leaves in {@code runs}.
 * Every job gets one from the CLI and reports its counts through {@link #succeed} or {@link #fail}.
 */
public final class JobRun {
  private static final DateTimeFormatter ID_TIME =
      DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss").withZone(ZoneOffset.UTC);

  private final String job;
  private final String runId;
  private final Instant startedAt = Instant.now();
  private final SparkSession spark;
  private final InfuseConfig config;
  private final Warehouse warehouse;
  private final PrintWriter out;
  private final PrintWriter err;

  public JobRun(
      String job, SparkSession spark, InfuseConfig config, PrintWriter out, PrintWriter err) {
    this.job = job;
    this.runId =
        job
            + "-"
            + ID_TIME.format(startedAt)
            + "-"
            + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextInt()).substring(2);
    this.spark = spark;
    // The master that runs, not the configured default (spark-submit's --master wins over it), so
    // that runs.config_json and every config hash say where the run went.
    this.config = config.withSparkMaster(spark.sparkContext().master());
    this.warehouse = Warehouse.of(spark, config);
    warehouse.requireReachable();
    this.out = out;
    this.err = err;
  }

  public String job() {
    return job;
  }

  public String runId() {
    return runId;
  }

  public Instant startedAt() {
    return startedAt;
  }

  public SparkSession spark() {
    return spark;
  }

  public InfuseConfig config() {
    return config;
  }

  public Warehouse warehouse() {
    return warehouse;
  }

  public PrintWriter out() {
    return out;
  }

  public PrintWriter err() {
    return err;
  }

  /**
   * Writes this run's dead letters ({@link Quarantine#deadLetters}) to {@code quarantine}, creating
   * the table if need be. A record quarantined before keeps its first run id.
   */
  public WriteResult quarantine(Dataset<Row> deadLetters) {
    return Quarantine.write(warehouse, Quarantine.rows(deadLetters, job, runId, startedAt));
  }

  /**
   * As {@link #quarantine(Dataset)}, but when the job has counted {@code count} = 0 dead letters it
   * writes nothing, without an action: it only creates the table if it is missing, so that a user
   * can always query it after a run.
   */
  public WriteResult quarantine(Dataset<Row> deadLetters, long count) {
    if (count == 0) {
      warehouse.ensureTable(Quarantine.contract());
      return WriteResult.unchanged(Quarantine.contract().table());
    }
    return quarantine(deadLetters);
  }

  /**
   * Records a succeeded run; fails if the counts do not reconcile, since that would mean lost
   * records.
   */
  public void succeed(RunCounts counts) {
    if (!counts.reconciles()) {
      throw new IllegalStateException(
          "counts do not reconcile for run "
              + runId
              + ": read "
              + counts.input()
              + " != written "
              + counts.output()
              + " + quarantined "
              + counts.quarantined()
              + " "
              + counts.details());
    }
    record("succeeded", counts, null);
  }

  /** Records a failed run with what is known of its counts. */
  public void fail(RunCounts counts, String error) {
    record("failed", counts, error);
  }

  private void record(String status, RunCounts counts, String error) {
    Row row =
        RowFactory.create(
            runId,
            job,
            status,
            ConfigJson.hash(config),
            ConfigJson.canonical(config),
            BuildInfo.gitSha(),
            BuildInfo.version(),
            spark.version(),
            Timestamp.from(startedAt),
            Timestamp.from(Instant.now()),
            counts.input(),
            counts.output(),
            counts.quarantined(),
            SparkRows.map(counts.details()),
            error);
    // One row under a run id this run made: its key is new by construction, so the row rules are
    // checked as it is written rather than by a checking job of their own (every run pays this).
    warehouse.appendComputed(
        Contracts.load("runs"),
        spark.createDataFrame(List.of(row), Contracts.load("runs").schema()));
  }
}
