package dev.infuse.jobs.ingest;

import static org.apache.spark.sql.functions.coalesce;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.concat;
import static org.apache.spark.sql.functions.concat_ws;
import static org.apache.spark.sql.functions.first;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.row_number;
import static org.apache.spark.sql.functions.sha2;
import static org.apache.spark.sql.functions.size;
import static org.apache.spark.sql.functions.struct;
import static org.apache.spark.sql.functions.to_json;
import static org.apache.spark.sql.functions.when;

import dev.infuse.jobs.contract.Contract;
import dev.infuse.jobs.contract.ContractEnforcer;
import dev.infuse.jobs.io.Quarantine;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.expressions.Window;
import org.apache.spark.sql.expressions.WindowSpec;

/**
 * Decides what happens to each item bound for one table: {@code written} (it becomes the row),
 * {@code collapsed} (an identical repeat of a written row: QuALITY repeats every article once per
 * writer), or {@code quarantined} with a reason. Adds {@link #DISPOSITION} and {@link #REASON}.
 *
 * <p>Order matters: contract checks come first, so that identical repeats of an invalid row are all
 * quarantined rather than collapsed into a row that is never written.
 */
final class Dispositions {
  static final String DISPOSITION = "_disposition";
  static final String REASON = "_reason";
  static final String WRITTEN = "written";
  static final String COLLAPSED = "collapsed";
  static final String QUARANTINED = "quarantined";

  private Dispositions() {}

  /**
   * Marks rows that break the contract (nulls, constraints) as quarantined with the violations as
   * reason.
   */
  static Dataset<Row> checkContract(Dataset<Row> items, Contract contract) {
    Dataset<Row> checked = new ContractEnforcer(contract).withViolations(items);
    Column bad = size(col(ContractEnforcer.VIOLATIONS)).gt(0);
    return checked
        .withColumn(DISPOSITION, when(bad, lit(QUARANTINED)))
        .withColumn(REASON, when(bad, concat_ws("; ", col(ContractEnforcer.VIOLATIONS))))
        .drop(ContractEnforcer.VIOLATIONS);
  }

  /**
   * Among rows not yet quarantined, the first row of each key (by file and position) is written;
   * later rows with the same content collapse into it, later rows with other content are
   * quarantined.
   */
  static Dataset<Row> resolveDuplicates(Dataset<Row> items, Contract contract) {
    String key = contract.primaryKey().get(0);
    Column content =
        sha2(
            to_json(
                struct(
                    contract.columnNames().stream()
                        .filter(c -> !contract.primaryKey().contains(c))
                        .map(c -> col(c))
                        .toArray(Column[]::new))),
            256);
    Column pending = col(DISPOSITION).isNull();
    WindowSpec byKey =
        Window.partitionBy(col(key), pending).orderBy(col("source_file"), col("ordinal"));
    Dataset<Row> ranked =
        items
            .withColumn("_hash", content)
            .withColumn("_rank", row_number().over(byKey))
            .withColumn("_first_hash", first(col("_hash")).over(byKey))
            .withColumn(
                "_first_at",
                first(concat(col("source_file"), lit(" "), coalesce(col("location"), lit("?"))))
                    .over(byKey));
    Column duplicate = pending.and(col("_rank").gt(1));
    Column same = col("_hash").equalTo(col("_first_hash"));
    return ranked
        .withColumn(
            REASON,
            when(
                    duplicate.and(same.unary_$bang()),
                    concat(
                        lit("duplicate " + key + " '"),
                        col(key),
                        lit("': content differs from the record at "),
                        col("_first_at"),
                        lit(", expected one record per " + key)))
                .otherwise(col(REASON)))
        .withColumn(
            DISPOSITION,
            when(pending.and(col("_rank").equalTo(1)), lit(WRITTEN))
                .when(duplicate.and(same), lit(COLLAPSED))
                .when(duplicate, lit(QUARANTINED))
                .otherwise(col(DISPOSITION)))
        .drop("_hash", "_rank", "_first_hash", "_first_at");
  }

  /** Dead letters of the items quarantined here; the payload is the row as JSON. */
  static Dataset<Row> quarantined(Dataset<Row> items, Contract contract) {
    Column payload =
        to_json(struct(contract.columnNames().stream().map(c -> col(c)).toArray(Column[]::new)));
    return Quarantine.deadLetters(
        items.filter(col(DISPOSITION).equalTo(QUARANTINED)),
        col("source_file"),
        coalesce(col("location"), lit("?")),
        payload,
        col(REASON));
  }
}
