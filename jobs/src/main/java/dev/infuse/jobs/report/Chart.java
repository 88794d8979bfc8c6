package dev.infuse.jobs.report;

import dev.infuse.jobs.report.ReportData.Recall;
import dev.infuse.jobs.report.ReportData.ScalingFit;
import dev.infuse.jobs.report.ReportData.Score;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jfree.chart.JFreeChart;

/**
 * One rendered chart of the report.
 *
 * @param id a stable id, used as the HTML element id and in report.json
 * @param section scaling, settings, recall or discussions
 * @param title what the chart shows
 * @param png the rendered image
 */
public record Chart(String id, String section, String title, byte[] png) {

  /**
   * Every chart the data allows: one per scaling axis (a curve per generator on it), per
   * (benchmark, subset, metric) of scores, per recall benchmark, and per discussion (turn by turn;
   * at most {@link ReportData#MAX_DISCUSSION_CHARTS}).
   */
  public static List<Chart> all(ReportData data) {
    List<Chart> charts = new ArrayList<>();
    int i = 0;
    // One chart per benchmark, setting, metric, subset and x-axis: a curve per generator (or per
    // labelled sweep) on it.
    Map<List<String>, List<ScalingFit>> curves = new LinkedHashMap<>();
    for (ScalingFit fit : data.fits()) {
      curves
          .computeIfAbsent(
              java.util.Arrays.asList(
                  fit.benchmark(),
                  fit.setting(),
                  fit.metric(),
                  fit.subset(),
                  fit.tokenCount(),
                  fit.countTokenizer()),
              k -> new ArrayList<>())
          .add(fit);
    }
    for (List<ScalingFit> fits : curves.values()) {
      charts.add(render("scaling-" + (++i), "scaling", ReportCharts.scaling(fits)));
    }
    Map<List<String>, List<Score>> groups = new LinkedHashMap<>();
    for (Score s : data.scores()) {
      groups
          .computeIfAbsent(List.of(s.benchmark(), s.subset(), s.metric()), k -> new ArrayList<>())
          .add(s);
    }
    i = 0;
    for (Map.Entry<List<String>, List<Score>> group : groups.entrySet()) {
      // Subsets other than 'all' are in the table; a chart per subset would bury the comparison.
      if (!ReportData.ALL.equals(group.getKey().get(1))
          && groups.keySet().stream()
              .anyMatch(
                  k -> k.get(0).equals(group.getKey().get(0)) && ReportData.ALL.equals(k.get(1)))) {
        continue;
      }
      charts.add(
          render(
              "settings-" + (++i),
              "settings",
              ReportCharts.settings(
                  group.getKey().get(0),
                  group.getKey().get(1),
                  group.getKey().get(2),
                  group.getValue())));
    }
    Map<String, List<Recall>> recall = new LinkedHashMap<>();
    data.recall()
        .forEach(r -> recall.computeIfAbsent(r.benchmark(), k -> new ArrayList<>()).add(r));
    i = 0;
    for (Map.Entry<String, List<Recall>> benchmark : recall.entrySet()) {
      charts.add(
          render(
              "recall-" + (++i),
              "recall",
              ReportCharts.recall(benchmark.getKey(), benchmark.getValue())));
    }
    i = 0;
    for (List<ReportData.DiscussionTurn> turns :
        ReportData.byDiscussion(data.discussions()).values()) {
      if (i == ReportData.MAX_DISCUSSION_CHARTS) {
        break;
      }
      charts.add(render("discussion-" + (++i), "discussions", ReportCharts.discussion(turns)));
    }
    return charts;
  }

  private static Chart render(String id, String section, JFreeChart chart) {
    return new Chart(id, section, chart.getTitle().getText(), ReportCharts.png(chart));
  }
}
