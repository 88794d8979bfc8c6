package dev.infuse.jobs.report;

import dev.infuse.jobs.report.ReportData.RunInfo;
import dev.infuse.jobs.report.ReportData.Score;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The papers' accuracies side by side, from the {@code scores} rows: {@code accuracy} (correct /
 * all), {@code accuracy_attempted} (correct / parsed, EntiGraph's) and {@code parse_rate} (parsed /
 * all) of each run, benchmark, subset and setting. The attempted accuracy is null where nothing
 * parsed (no row in scores) or where the score run predates the metric.
 */
public final class AccuracySummary {
  static final String ACCURACY = "accuracy";
  static final String ACCURACY_ATTEMPTED = "accuracy_attempted";
  static final String PARSE_RATE = "parse_rate";

  /** The answer run's counts keys that say how loglikelihood options were tokenized. */
  static final String ADD_BOS = "loglikelihood.add_bos";

  static final String BOS_TOKEN_ID = "loglikelihood.bos_token_id";

  private AccuracySummary() {}

  /** One line of the summary; a metric is null when scores has no row for it. */
  public record Line(
      String runId,
      String benchmark,
      String subset,
      String setting,
      String model,
      Score accuracy,
      Score accuracyAttempted,
      Score parseRate) {}

  /** The lines, in the order of the scores rows; only groups that have accuracy. */
  public static List<Line> lines(List<Score> scores) {
    Map<List<String>, Score[]> groups = new LinkedHashMap<>();
    for (Score s : scores) {
      int slot =
          switch (s.metric()) {
            case ACCURACY -> 0;
            case ACCURACY_ATTEMPTED -> 1;
            case PARSE_RATE -> 2;
            default -> -1;
          };
      if (slot < 0) {
        continue;
      }
      List<String> key = List.of(s.runId(), s.benchmark(), s.subset(), s.setting(), s.model());
      groups.computeIfAbsent(key, k -> new Score[3])[slot] = s;
    }
    List<Line> lines = new ArrayList<>();
    for (var e : groups.entrySet()) {
      Score[] m = e.getValue();
      if (m[0] == null) {
        continue;
      }
      List<String> k = e.getKey();
      lines.add(new Line(k.get(0), k.get(1), k.get(2), k.get(3), k.get(4), m[0], m[1], m[2]));
    }
    return lines;
  }

  /**
   * How the run's loglikelihood scoring treated BOS, from its counts: "BOS (token N)", "no BOS", or
   * null when the run did not score option log-likelihoods (or predates the record).
   */
  public static String bos(RunInfo run) {
    Long added = run.counts().get(ADD_BOS);
    if (added == null) {
      return null;
    }
    if (added == 0) {
      return "no BOS";
    }
    Long id = run.counts().get(BOS_TOKEN_ID);
    return id == null ? "BOS" : "BOS (token " + id + ")";
  }

  /** The BOS token id the run scored after, or null. */
  public static Long bosTokenId(RunInfo run) {
    Long added = run.counts().get(ADD_BOS);
    return added == null || added == 0 ? null : run.counts().get(BOS_TOKEN_ID);
  }

  /** Whether the run put BOS before contexts; null when it did not score log-likelihoods. */
  public static Boolean addBos(RunInfo run) {
    Long added = run.counts().get(ADD_BOS);
    return added == null ? null : added != 0;
  }
}
