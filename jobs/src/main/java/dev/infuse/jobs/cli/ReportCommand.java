package dev.infuse.jobs.cli;

import dev.infuse.jobs.JobRun;
import dev.infuse.jobs.RunCounts;
import dev.infuse.jobs.config.ConfigLoader;
import dev.infuse.jobs.report.ReportJob;
import java.util.List;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(
    name = "report",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Write a self-contained HTML report (report.html, charts inline) and report.json with every number,",
      "from scores, score_comparisons, scaling_fits, retrieval_recall and runs. Missing tables are noted, not fatal."
    })
public final class ReportCommand extends JobCommand {
  @Option(
      names = "--output",
      paramLabel = "DIR|URI",
      description =
          "The report's directory (report.output); a relative path is relative to the current directory."
              + " Default: reports/<score run id> under the warehouse.")
  String output;

  @Option(
      names = "--title",
      paramLabel = "TEXT",
      description = "The report's title (report.title).")
  String title;

  @Option(
      names = "--score-run",
      paramLabel = "ID",
      description =
          "A score run to report (repeatable; report.score_runs); 'all' for every row. Default: the latest.")
  List<String> scoreRuns;

  @Option(
      names = "--retrieve-run",
      paramLabel = "ID",
      description =
          "A retrieve run whose recall@k to report (repeatable; report.retrieve_runs); 'all' for every row."
              + " Default: the latest per benchmark and retriever.")
  List<String> retrieveRuns;

  @Override
  protected String jobName() {
    return ReportJob.NAME;
  }

  @Override
  protected void applyFlags(ConfigLoader loader) {
    if (output != null) {
      // On the command line a relative path means the current directory, as for any other tool.
      boolean uri =
          output.matches("^[A-Za-z][A-Za-z0-9+.-]*:.*") && !output.matches("^[A-Za-z]:\\\\.*");
      loader.setString(
          "report.output",
          uri ? output : java.nio.file.Path.of(output).toAbsolutePath().normalize().toString());
    }
    if (title != null) {
      loader.setString("report.title", title);
    }
    if (scoreRuns != null) {
      loader.set("report.score_runs=" + flowList(scoreRuns));
    }
    if (retrieveRuns != null) {
      loader.set("report.retrieve_runs=" + flowList(retrieveRuns));
    }
  }

  @Override
  protected RunCounts execute(JobRun run) {
    return new ReportJob(run).run();
  }

  /** A YAML flow list of quoted strings: run ids are never read as numbers or keywords. */
  private static String flowList(List<String> values) {
    return values.stream()
        .map(v -> "\"" + v.replace("\\", "\\\\").replace("\"", "\\\"") + "\"")
        .collect(Collectors.joining(", ", "[", "]"));
  }
}
