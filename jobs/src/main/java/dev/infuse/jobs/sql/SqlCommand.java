package dev.infuse.jobs.sql;

import static org.apache.spark.sql.functions.col;

import dev.infuse.jobs.cli.CommonOptions;
import dev.infuse.jobs.config.ConfigException;
import dev.infuse.jobs.config.InfuseConfig;
import dev.infuse.jobs.io.Warehouse;
import dev.infuse.jobs.spark.SparkSessions;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
import org.apache.spark.sql.AnalysisException;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code sql}: Spark SQL over the warehouse, with every table registered under its own name. Output
 * is an aligned table, or with {@code --json} one JSON object per line with every column present
 * (nulls included), which scripts and later jobs rely on: keep it stable.
 */
@Command(
    name = "sql",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Run Spark SQL over the warehouse's tables (documents, questions, chunks, quarantine, runs, …).",
      "Example: infuse sql --warehouse ./warehouse \"SELECT corpus, count(*) FROM documents GROUP BY corpus\""
    })
public final class SqlCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Mixin CommonOptions common;

  @Parameters(paramLabel = "QUERY", description = "The SQL statement.")
  String query;

  @Option(
      names = "--json",
      description = "Print JSON lines, one object per row, instead of a table.")
  boolean json;

  @Option(
      names = "--limit",
      paramLabel = "N",
      defaultValue = "1000",
      description = "Print at most N rows (default ${DEFAULT-VALUE}); 0 prints all.")
  int limit;

  @Option(
      names = "--truncate",
      paramLabel = "N",
      defaultValue = "80",
      description =
          "Cut table cells to N characters (default ${DEFAULT-VALUE}); 0 keeps them whole. Not applied to --json.")
  int truncate;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    InfuseConfig config;
    try {
      config = common.loader().load();
    } catch (ConfigException e) {
      err.println("error: " + e.getMessage());
      err.flush();
      return 2;
    }
    SparkSessions.Session session =
        SparkSessions.getOrCreate("infuse sql", config.spark().master(), config.spark().conf());
    try {
      Warehouse warehouse = new Warehouse(session.spark(), config.warehouse());
      List<String> tables = warehouse.registerViews();
      Dataset<Row> result;
      try {
        result = session.spark().sql(query);
      } catch (Exception e) {
        if (!(e instanceof AnalysisException)) {
          throw e;
        }
        err.println("error: " + e.getMessage().lines().findFirst().orElse(e.toString()));
        err.println(
            "tables in "
                + warehouse.root()
                + ": "
                + (tables.isEmpty() ? "none" : String.join(", ", tables)));
        err.flush();
        return 2;
      }
      Dataset<Row> shown = limit > 0 ? result.limit(limit + 1) : result;
      if (json) {
        List<String> lines = shown.toJSON().collectAsList();
        lines.stream().limit(limit > 0 ? limit : Long.MAX_VALUE).forEach(out::println);
      } else {
        printTable(shown, out);
      }
      out.flush();
      return 0;
    } finally {
      if (session.created()) {
        session.spark().stop();
      }
    }
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
