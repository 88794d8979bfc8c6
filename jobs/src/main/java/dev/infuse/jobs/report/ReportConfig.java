package dev.infuse.jobs.report;

import dev.infuse.jobs.config.ConfigSection;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@code report} section: a self-contained HTML report and its numbers as JSON.
 *
 * @param output the report's directory, any Hadoop URI; relative paths are relative to the
 *     warehouse; null for {@code reports/<score run id>} under the warehouse
 * @param title the report's title
 * @param scoreRuns the score runs (score_run_id) whose scores, comparisons and fits are reported;
 *     empty for the latest one, {@code [all]} for every row of the tables
 * @param retrieveRuns the retrieve runs whose recall@k is reported; empty for the latest run of
 *     each benchmark and retriever, {@code [all]} for every row
 * @param behaviorRuns the behaviour answer runs (behavior_scores.run_id) whose metrics are
 *     reported; empty for every run that score has scored
 */
public record ReportConfig(
    String output,
    String title,
    List<String> scoreRuns,
    List<String> retrieveRuns,
    List<String> behaviorRuns)
    implements ConfigSection {
  /** A null list (score_runs: null) means the default, like an empty one. */
  public ReportConfig {
    scoreRuns = scoreRuns == null ? List.of() : scoreRuns;
    retrieveRuns = retrieveRuns == null ? List.of() : retrieveRuns;
    behaviorRuns = behaviorRuns == null ? List.of() : behaviorRuns;
  }

  @Override
  public List<String> problems() {
    List<String> problems = new ArrayList<>();
    if (output != null && output.isBlank()) {
      problems.add(
          "output: got an empty string, expected a directory or URI, or null for reports/<score run"
              + " id>");
    }
    if (title == null || title.isBlank()) {
      problems.add("title: got nothing, expected a title");
    }
    for (String id : scoreRuns) {
      if (id == null || id.isBlank()) {
        problems.add(
            "score_runs: got an empty id, expected score run ids, or [all], or [] for the latest");
      }
    }
    for (String id : retrieveRuns) {
      if (id == null || id.isBlank()) {
        problems.add(
            "retrieve_runs: got an empty id, expected retrieve run ids, or [all], or [] for the"
                + " latest");
      }
    }
    for (String id : behaviorRuns) {
      if (id == null || id.isBlank()) {
        problems.add(
            "behavior_runs: got an empty id, expected behaviour answer run ids, or [] for all");
      }
    }
    return problems;
  }
}
