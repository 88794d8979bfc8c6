package dev.infuse.tests;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.SparkSession;
import scala.Console$;
import scala.tools.nsc.Settings;
import scala.tools.nsc.interpreter.IMain;
import scala.tools.nsc.interpreter.Results;

/**
 * Runs a Scala notebook in Databricks source format the way {@code spark-shell -i} would: cell by
 * cell, in one Scala 2.12 interpreter (Spark's own Scala version), with {@code spark} bound to this
 * JVM's session. A cell that does not compile or throws stops the run.
 */
public final class ScalaNotebookRunner {
  static final String CELL_SEPARATOR = "// COMMAND ----------";

  /** The session the interpreted code reaches through {@code val spark = ...session()}. */
  private static SparkSession session;

  private ScalaNotebookRunner() {}

  public static SparkSession session() {
    return session;
  }

  /** What one run did: the cell that failed (null when all ran) and everything printed. */
  record Outcome(String failedCell, String output) {}

  static synchronized Outcome run(SparkSession spark, String notebook) {
    session = spark;
    StringWriter printed = new StringWriter();
    Settings settings = new Settings();
    // Surefire runs tests from a manifest-only jar, so java.class.path names only that jar; the
    // real test classpath is in this property.
    settings
        .classpath()
        .value_$eq(
            System.getProperty("surefire.test.class.path", System.getProperty("java.class.path")));
    IMain interpreter = new IMain(settings, new PrintWriter(printed, true));
    try {
      Results.Result bound =
          interpreter.interpret(
              "val spark = " + ScalaNotebookRunner.class.getName() + ".session()");
      if (bound != Results.Success$.MODULE$) {
        return new Outcome("(binding spark)", printed.toString());
      }
      // Dataset.show prints to Scala's Console, not to the interpreter's writer: capture it per
      // cell
      // and append it after what the interpreter printed for that cell.
      for (String cell : codeCells(notebook)) {
        ByteArrayOutputStream shown = new ByteArrayOutputStream();
        Results.Result result;
        try (PrintStream console = new PrintStream(shown, true, UTF_8)) {
          result = Console$.MODULE$.withOut(console, () -> interpreter.interpret(cell));
        }
        printed.append(shown.toString(UTF_8));
        if (result != Results.Success$.MODULE$) {
          return new Outcome(cell, printed.toString());
        }
      }
      return new Outcome(null, printed.toString());
    } finally {
      interpreter.close();
    }
  }

  /** The cells that hold code; markdown cells (every line starting with "// MAGIC") are skipped. */
  static List<String> codeCells(String notebook) {
    List<String> cells = new ArrayList<>();
    for (String cell : notebook.split(CELL_SEPARATOR)) {
      boolean code =
          cell.lines()
              .map(String::trim)
              .anyMatch(line -> !line.isEmpty() && !line.startsWith("//"));
      if (code) {
        cells.add(cell.strip());
      }
    }
    return cells;
  }
}
