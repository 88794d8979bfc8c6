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
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/** Builds and writes rows of the {@code quarantine} table. */
public final class Quarantine {
  private Quarantine() {}

  public static Contract contract() {
    return Contracts.load("quarantine");
  }

  /** The dead-letter shape: what {@link #rows} turns into quarantine rows. */
  public static final StructType DEAD_LETTERS =
      new StructType()
          .add("source", DataTypes.StringType, true)
          .add("location", DataTypes.StringType, true)
          .add("payload", DataTypes.StringType, true)
          .add("payload_bytes", DataTypes.BinaryType, true)
          .add("reason", DataTypes.StringType, true);

  /** One dead letter built on the driver, in the {@link #DEAD_LETTERS} shape. */
  public static Row deadLetter(String source, String location, String payload, String reason) {
    return RowFactory.create(source, location, payload, null, reason);
  }

  /**
   * Records that failed, in the one shape every job hands to quarantine (the dead-letter idea of
   * DataflowTemplates' {@code FailsafeElement}): where each came from, its original payload, and
   * why it was rejected. {@code payload_bytes}, for payloads that are not text, stays null.
   *
   * @param failed the rows that failed, with whatever columns the expressions read
   * @param source what the record was read from: a table, or a file
   * @param location where in the source: a key, a line, a unit and call
   * @param payload the record as it was, so that nothing is lost
   * @param reason why it was rejected, naming the field and the expected value
   */
  public static Dataset<Row> deadLetters(
      Dataset<Row> failed, Column source, Column location, Column payload, Column reason) {
    return deadLetters(failed, source, location, payload, lit(null), reason);
  }

  /**
   * As {@link #deadLetters(Dataset, Column, Column, Column, Column)}, for records whose exact bytes
   * matter too: a line that is not valid UTF-8 keeps them in {@code payload_bytes}.
   */
  public static Dataset<Row> deadLetters(
      Dataset<Row> failed,
      Column source,
      Column location,
      Column payload,
      Column payloadBytes,
      Column reason) {
    return failed.select(
        source.as("source"),
        location.as("location"),
        payload.cast("string").as("payload"),
        payloadBytes.cast("binary").as("payload_bytes"),
        reason.as("reason"));
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
