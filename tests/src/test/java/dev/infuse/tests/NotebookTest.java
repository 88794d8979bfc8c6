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
 * Runs every notebook under {@code notebooks/} against the demo's warehouse, so a notebook never
 * rots silently: each SQL cell (Databricks SQL source format) must run and return rows, and each
 * Scala notebook (Databricks Scala source format) must run cell by cell in the Scala 2.12
 * interpreter, as {@code spark-shell -i} would run it.
 */
class NotebookTest {
  private static final String CELL_SEPARATOR = "-- COMMAND ----------";
  private final SparkSession spark = SparkTestSession.get();

  static Stream<Path> notebooks() throws IOException {
    return notebooksEndingWith(".sql");
  }

  static Stream<Path> scalaNotebooks() throws IOException {
    return notebooksEndingWith(".scala");
  }

  private static Stream<Path> notebooksEndingWith(String extension) throws IOException {
    try (Stream<Path> files = Files.list(SparkTestSession.repoRoot().resolve("notebooks"))) {
      return files.filter(p -> p.toString().endsWith(extension)).sorted().toList().stream();
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("scalaNotebooks")
  void everyScalaCellRuns(Path notebook) throws IOException {
    String source = Files.readString(notebook);
    assertThat(source)
        .as(notebook + ": Databricks source format")
        .startsWith("// Databricks notebook source\n");
    assertThat(ScalaNotebookRunner.codeCells(source))
        .as("code cells in " + notebook)
        .hasSizeGreaterThan(2);
    String previous = System.getProperty("infuse.warehouse");
    System.setProperty("infuse.warehouse", DemoWarehouse.get());
    try {
      ScalaNotebookRunner.Outcome outcome = ScalaNotebookRunner.run(spark, source);
      // What the notebook showed, beside the surefire reports, for a reader of a CI run.
      Path shown = Path.of("target", "notebooks", notebook.getFileName() + ".out");
      Files.createDirectories(shown.getParent());
      Files.writeString(shown, outcome.output());
      assertThat(outcome.failedCell())
          .as(notebook + ": a cell failed; the interpreter printed:\n" + outcome.output())
          .isNull();
      // Every cell's tables printed: a notebook that shows nothing has not run.
      assertThat(outcome.output()).contains("+---");
    } finally {
      if (previous == null) {
        System.clearProperty("infuse.warehouse");
      } else {
        System.setProperty("infuse.warehouse", previous);
      }
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
