package dev.infuse.tests;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.regexp_replace;
import static org.apache.spark.sql.functions.struct;
import static org.apache.spark.sql.functions.to_json;

import dev.infuse.jobs.io.Warehouse;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * Compares the data tables of two warehouses that ran the same steps, e.g. the same pipeline on a
 * cluster and locally: each table of {@code candidate} against {@code reference}'s table at the
 * same Delta version (a pipeline commits to each table in the same order wherever it runs, so a
 * candidate that ran only the first steps compares with the reference as it stood then). Rows
 * compare as multisets of their JSON, leaving out the columns that say when, where or how fast a
 * row was made.
 */
final class WarehouseComparison {
  /**
   * Columns that record the run rather than the data: run ids (random per run), times, speeds, and
   * the hash of the run's config (which names the master and the warehouse, so it differs by
   * construction).
   */
  private static final Set<String> RUN_COLUMNS =
      Set.of(
          "run_id",
          "score_run_id",
          "discuss_run_id",
          "called_at",
          "quarantined_at",
          "latency_ms",
          "seconds",
          "wall_seconds",
          "tokens_per_second",
          "config_hash");

  private final SparkSession spark;
  private final Warehouse candidate;
  private final Warehouse reference;
  private final String candidateRoot;
  private final String referenceRoot;

  /** Both are local warehouse directories. */
  WarehouseComparison(SparkSession spark, String candidate, String reference) {
    this.spark = spark;
    this.candidate = new Warehouse(spark, candidate);
    this.reference = new Warehouse(spark, reference);
    this.candidateRoot = candidate;
    this.referenceRoot = reference;
  }

  /**
   * Every difference, one line per table: columns whose values differ, or rows that differ when no
   * single column does. Empty when the tables match. {@code skipped} maps a table to why it is not
   * compared (run metadata, not data).
   */
  List<String> differences(Map<String, String> skipped) {
    List<String> found = new ArrayList<>();
    for (String table : candidate.tables()) {
      if (skipped.containsKey(table)) {
        continue;
      }
      long version = candidate.version(table);
      Dataset<Row> mine = candidate.read(table);
      Dataset<Row> theirs =
          spark.read().format("delta").option("versionAsOf", version).load(reference.path(table));
      List<String> columns =
          Arrays.stream(mine.columns()).filter(c -> !RUN_COLUMNS.contains(c)).toList();
      if (!Arrays.asList(theirs.columns()).containsAll(columns)) {
        found.add(table + ": columns " + columns + " vs " + Arrays.asList(theirs.columns()));
        continue;
      }
      Dataset<Row> mineRows = asJson(mine, columns, candidateRoot);
      Dataset<Row> theirRows = asJson(theirs, columns, referenceRoot);
      long mineOnly = mineRows.exceptAll(theirRows).count();
      long theirsOnly = theirRows.exceptAll(mineRows).count();
      if (mineOnly == 0 && theirsOnly == 0) {
        continue;
      }
      List<String> differing = new ArrayList<>();
      for (String column : columns) {
        if (asJson(mine, List.of(column), candidateRoot)
                .exceptAll(asJson(theirs, List.of(column), referenceRoot))
                .count()
            > 0) {
          differing.add(column);
        }
      }
      found.add(
          String.format(
              "%s@v%d: %d row(s) only here, %d only in the reference; differing columns %s",
              table, version, mineOnly, theirsOnly, differing));
    }
    return found;
  }

  /**
   * Each row as one JSON string of {@code columns}, with the warehouse's own path (in shard outputs
   * and the like) written as {@code <warehouse>}.
   */
  private static Dataset<Row> asJson(Dataset<Row> rows, List<String> columns, String root) {
    Column[] selected = columns.stream().map(c -> col(c)).toArray(Column[]::new);
    return rows.select(
        regexp_replace(to_json(struct(selected)), Pattern.quote(root), "<warehouse>").as("row"));
  }
}
