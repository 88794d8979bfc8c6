package dev.infuse.jobs.spark;

import java.util.ArrayList;
import java.util.List;
import org.apache.spark.api.java.function.MapPartitionsFunction;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;

/**
 * The first rows of a dataset in one Spark job. {@code limit(n).collect()}, {@code head} and {@code
 * isEmpty} collect in rounds over more and more partitions, one job per round, until they have n
 * rows; a check that usually finds nothing (a clean contract check, an unchanged rerun) runs every
 * round, and each job is a fixed cost of a small write. Here every partition gives up to n rows in
 * the same job, so at most n times the partition count reach the driver.
 *
 * <p>It stays a Dataset action: the same loop over {@code javaRDD()} of the persisted source of a
 * merge saw the target Delta table as empty on a rerun in the same session (every chunk read as
 * changed), which the Dataset form does not.
 */
public final class FirstRows {
  private FirstRows() {}

  /** Up to {@code limit} rows of {@code data}, in no particular order. */
  public static List<Row> of(Dataset<Row> data, int limit) {
    MapPartitionsFunction<Row, Row> firstOfPartition =
        partition -> {
          List<Row> first = new ArrayList<>();
          while (first.size() < limit && partition.hasNext()) {
            first.add(partition.next());
          }
          return first.iterator();
        };
    List<Row> rows =
        data.mapPartitions(firstOfPartition, Encoders.row(data.schema())).collectAsList();
    return rows.size() <= limit ? rows : List.copyOf(rows.subList(0, limit));
  }

  /** Whether {@code data} has no row. */
  public static boolean none(Dataset<Row> data) {
    return of(data, 1).isEmpty();
  }
}
