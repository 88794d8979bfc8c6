package dev.infuse.jobs.sql;

import static org.apache.spark.sql.functions.col;

import dev.infuse.jobs.io.Warehouse;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.spark.sql.AnalysisException;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * Spark SQL over the warehouse, with every table registered under its own name. Output is an
 * aligned table, or one JSON object per line with every column present (nulls included), which
 * scripts and later jobs rely on: keep it stable.
 *
 * @param limit print at most this many rows; 0 prints all
 * @param truncate cut table cells to this many characters; 0 keeps them whole (not for JSON)
 */
public record SqlQuery(String query, boolean json, int limit, int truncate) {

  /** Spark cannot analyse the query: an unknown table or column, or bad syntax. */
  public static final class BadQueryException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final transient List<String> tables;

    BadQueryException(String message, List<String> tables) {
      super(message);
      this.tables = List.copyOf(tables);
    }

    /** The tables the warehouse has, to name in the error. */
    public List<String> tables() {
      return tables;
    }
  }

  /**
   * Runs the query over {@code warehouse} and prints the result.
   *
   * @throws BadQueryException when Spark cannot analyse it
   */
  public void run(SparkSession spark, Warehouse warehouse, PrintWriter out) {
    List<String> tables = warehouse.registerViews();
    Dataset<Row> result;
    try {
      result = spark.sql(query);
    } catch (Exception e) {
      if (!(e instanceof AnalysisException)) {
        throw e;
      }
      throw new BadQueryException(
          e.getMessage().lines().filter(l -> !l.isBlank()).findFirst().orElse(e.toString()),
          tables);
    }
    Dataset<Row> shown = limit > 0 ? result.limit(limit + 1) : result;
    if (json) {
      List<String> lines = shown.toJSON().collectAsList();
      lines.stream().limit(limit > 0 ? limit : Long.MAX_VALUE).forEach(out::println);
    } else {
      printTable(shown, out);
    }
    out.flush();
  }

  private void printTable(Dataset<Row> shown, PrintWriter out) {
    String[] names = shown.columns();
    // Spark's own string cast renders arrays, maps and structs readably: [a, b], {k -> v}.
    Column[] asText =
        Arrays.stream(names).map(n -> col("`" + n + "`").cast("string")).toArray(Column[]::new);
    List<Row> rows = shown.select(asText).collectAsList();
    boolean more = limit > 0 && rows.size() > limit;
    List<List<String>> cells = new ArrayList<>();
    for (Row row : more ? rows.subList(0, limit) : rows) {
      List<String> values = new ArrayList<>();
      for (int i = 0; i < names.length; i++) {
        values.add(row.isNullAt(i) ? null : row.getString(i));
      }
      cells.add(values);
    }
    new TablePrinter(truncate).print(Arrays.asList(names), cells, more, out);
  }
}
