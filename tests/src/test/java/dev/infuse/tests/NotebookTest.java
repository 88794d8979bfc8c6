package dev.infuse.tests;

import static org.assertj.core.api.Assertions.assertThat;

import dev.infuse.jobs.SparkTestSession;
import dev.infuse.jobs.io.Warehouse;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Runs every notebook under {@code notebooks/} (Databricks SQL source format) against the demo's
 * warehouse: each SQL cell must run and return rows, so a notebook never rots silently.
 */
class NotebookTest {
  private static final String CELL_SEPARATOR = "-- COMMAND ----------";
  private final SparkSession spark = SparkTestSession.get();

  static Stream<Path> notebooks() throws IOException {
    try (Stream<Path> files = Files.list(SparkTestSession.repoRoot().resolve("notebooks"))) {
      return files.filter(p -> p.toString().endsWith(".sql")).sorted().toList().stream();
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("notebooks")
  void everyCellRunsAndReturnsRows(Path notebook) throws IOException {
    new Warehouse(spark, DemoWarehouse.get()).registerViews();
    List<String> cells = sqlCells(Files.readString(notebook));
    assertThat(cells).as("SQL cells in " + notebook).isNotEmpty();
    for (String cell : cells) {
      assertThat(spark.sql(cell).limit(1).count()).as("rows from cell:\n" + cell).isEqualTo(1);
    }
  }

  /** The cells that hold SQL; markdown cells (every line starting with "-- MAGIC") are skipped. */
  static List<String> sqlCells(String notebook) {
    List<String> cells = new ArrayList<>();
    for (String cell : notebook.split(CELL_SEPARATOR)) {
      String sql =
          cell.lines()
              .filter(line -> !line.startsWith("--"))
              .collect(Collectors.joining("\n"))
              .trim();
      if (sql.endsWith(";")) {
        sql = sql.substring(0, sql.length() - 1);
      }
      if (!sql.isEmpty()) {
        cells.add(sql);
      }
    }
    return cells;
  }
}
