package dev.infuse.jobs.cli;

import dev.infuse.jobs.report.ReportJob;
import java.nio.file.Path;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;

@Command(
    name = "report",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    header = "Write the self-contained HTML report and report.json.",
    description = {
      "Charts inline, and every number as JSON, from scores, score_comparisons, "
          + "scaling_fits, retrieval_recall and runs. Missing tables are noted, not fatal."
    })
public final class ReportCommand extends JobCommand {
  @Option(
      names = "--output",
      paramLabel = "DIR|URI",
      converter = FromWorkingDirectory.class,
      description =
          "The report's directory; a relative path is relative to the current directory."
              + " Default: reports/<score run id> under the warehouse.")
  @ConfigKey("report.output")
  String output;

  @Option(names = "--title", paramLabel = "TEXT", description = "The report's title.")
  @ConfigKey("report.title")
  String title;

  @Option(
      names = "--score-run",
      paramLabel = "ID",
      description = "A score run to report (repeatable); 'all' for every row. Default: the latest.")
  @ConfigKey("report.score_runs")
  List<String> scoreRuns;

  @Option(
      names = "--retrieve-run",
      paramLabel = "ID",
      description =
          "A retrieve run whose recall@k to report (repeatable); 'all' for every row."
              + " Default: the latest per benchmark and retriever.")
  @ConfigKey("report.retrieve_runs")
  List<String> retrieveRuns;

  public ReportCommand() {
    super(ReportJob.NAME, run -> new ReportJob(run).run());
  }

  /**
   * On the command line a relative path means the current directory, as for any other tool (in
   * config it means the warehouse); a URI stays as it is.
   */
  static final class FromWorkingDirectory implements ITypeConverter<String> {
    @Override
    public String convert(String value) {
      boolean uri =
          value.matches("^[A-Za-z][A-Za-z0-9+.-]*:.*") && !value.matches("^[A-Za-z]:\\\\.*");
      return uri ? value : Path.of(value).toAbsolutePath().normalize().toString();
    }
  }
}
