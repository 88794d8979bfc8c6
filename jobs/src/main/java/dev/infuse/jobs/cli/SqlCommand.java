package dev.infuse.jobs.cli;

import dev.infuse.jobs.config.ConfigException;
import dev.infuse.jobs.config.InfuseConfig;
import dev.infuse.jobs.io.Warehouse;
import dev.infuse.jobs.spark.SparkSessions;
import dev.infuse.jobs.sql.SqlQuery;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(
    name = "sql",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    header = "Run Spark SQL over the warehouse's tables.",
    description = {
      "Prints an aligned table, or with --json one JSON object per row with every column. "
          + "Example: infuse sql --warehouse ./warehouse \"SELECT corpus, count(*) FROM documents "
          + "GROUP BY corpus\""
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
          "Cut table cells to N characters (default ${DEFAULT-VALUE}); 0 keeps them whole. Not"
              + " applied to --json.")
  int truncate;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    InfuseConfig config;
    try {
      config = common.loader(spec).load();
    } catch (ConfigException e) {
      return ExitCodes.invalidConfig(err, e);
    }
    return SparkSessions.with(
        "infuse sql",
        config.spark().master(),
        config.spark().conf(),
        spark -> {
          Warehouse warehouse;
          try {
            warehouse = Warehouse.of(spark, config);
          } catch (ConfigException e) {
            return ExitCodes.invalidConfig(err, e);
          }
          try {
            new SqlQuery(query, json, limit, truncate).run(spark, warehouse, out);
            return ExitCodes.OK;
          } catch (SqlQuery.BadQueryException e) {
            err.println("error: " + e.getMessage());
            err.println(
                "tables in "
                    + warehouse.root()
                    + ": "
                    + (e.tables().isEmpty() ? "none" : String.join(", ", e.tables())));
            err.flush();
            return ExitCodes.USAGE;
          }
        });
  }
}
