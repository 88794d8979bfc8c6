package dev.infuse.jobs.io;

import static org.apache.spark.sql.functions.coalesce;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.concat_ws;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.sha2;
import static org.apache.spark.sql.functions.substring;

import dev.infuse.jobs.contract.Contract;
import dev.infuse.jobs.contract.Contracts;
import java.sql.Timestamp;
import java.time.Instant;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/** Builds and writes rows of the {@code quarantine} table. */
public final class Quarantine {
  private Quarantine() {}

  public static Contract contract() {
    return Contracts.load("quarantine");
  }

  /**
   * Turns rejected records into quarantine rows. {@code rejected} has string columns {@code
   * source}, {@code location}, {@code payload}, {@code reason} and a binary {@code payload_bytes}.
   * The key hashes job, source, location, reason and payload, so quarantining the same record again
   * adds nothing.
   */
  public static Dataset<Row> rows(Dataset<Row> rejected, String job, String runId, Instant at) {
    return rejected
        .withColumn("job", lit(job))
        .withColumn("run_id", lit(runId))
        .withColumn("quarantined_at", lit(Timestamp.from(at)))
        .withColumn(
            "quarantine_id",
            substring(
                sha2(
                    concat_ws(
                        "\u001f",
                        col("job"),
                        col("source"),
                        col("location"),
                        col("reason"),
                        coalesce(col("payload"), lit(""))),
                    256),
                1,
                16))
        .select(
            contract().columnNames().stream()
                .map(c -> col(c))
                .toArray(org.apache.spark.sql.Column[]::new));
  }

  /** Writes new quarantine rows; rows already there (same key) are left with their first run id. */
  public static WriteResult write(Warehouse warehouse, Dataset<Row> rows) {
    return warehouse.insertNew(contract(), rows);
  }
}
