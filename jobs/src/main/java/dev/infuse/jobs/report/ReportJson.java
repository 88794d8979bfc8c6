package dev.infuse.jobs.report;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.infuse.jobs.report.ReportData.Comparison;
import dev.infuse.jobs.report.ReportData.Point;
import dev.infuse.jobs.report.ReportData.Recall;
import dev.infuse.jobs.report.ReportData.RunInfo;
import dev.infuse.jobs.report.ReportData.ScalingFit;
import dev.infuse.jobs.report.ReportData.Score;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * report.json: every number the report shows, at full precision and with the table's column names,
 * so a reader (or a notebook) can check or re-plot the report without parsing HTML. NaN is written
 * as null.
 */
public final class ReportJson {
  private static final ObjectMapper JSON =
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  private ReportJson() {}

  public static String render(
      String title, String reportRunId, Instant generatedAt, ReportData data, List<Chart> charts) {
    Map<String, Object> root = new LinkedHashMap<>();
    root.put("title", title);
    root.put("report_run_id", reportRunId);
    root.put("generated_at", generatedAt.toString());
    root.put("score_runs", data.scoreRuns());
    root.put("notes", data.notes());
    root.put("scores", data.scores().stream().map(ReportJson::score).toList());
    root.put(
        "accuracy_summary",
        AccuracySummary.lines(data.scores()).stream().map(ReportJson::accuracyLine).toList());
    root.put("score_comparisons", data.comparisons().stream().map(ReportJson::comparison).toList());
    root.put("scaling_fits", data.fits().stream().map(ReportJson::fit).toList());
    root.put("retrieval_recall", data.recall().stream().map(ReportJson::recall).toList());
    root.put(
        "discussion_scores", data.discussions().stream().map(ReportJson::discussionTurn).toList());
    root.put("behavior_runs", data.behavior().stream().map(ReportJson::behaviorRun).toList());
    root.put(
        "behavior_panel",
        BehaviorRuns.panelMeans(data.behavior()).stream().map(ReportJson::panelMean).toList());
    root.put("rag_recipes", data.ragRecipes());
    root.put("runs", data.runs().stream().map(ReportJson::run).toList());
    root.put("runs_not_found", data.runsNotFound());
    List<Map<String, Object>> chartList = new ArrayList<>();
    for (Chart chart : charts) {
      Map<String, Object> c = new LinkedHashMap<>();
      c.put("id", chart.id());
      c.put("section", chart.section());
      c.put("title", chart.title());
      c.put("png_bytes", chart.png().length);
      chartList.add(c);
    }
    root.put("charts", chartList);
    try {
      return JSON.writeValueAsString(root) + "\n";
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException("cannot write report.json", e);
    }
  }

  private static Map<String, Object> score(Score s) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("run_id", s.runId());
    m.put("benchmark", s.benchmark());
    m.put("subset", s.subset());
    m.put("setting", s.setting());
    m.put("model", s.model());
    m.put("metric", s.metric());
    m.put("value", finite(s.value()));
    m.put("n", s.n());
    m.put("ci_low", finite(s.ciLow()));
    m.put("ci_high", finite(s.ciHigh()));
    m.put("synthetic_tokens", s.syntheticTokens());
    m.put("config_hash", s.configHash());
    m.put("prompt_versions", s.promptVersions());
    m.put("git_sha", s.gitSha());
    m.put("score_run_id", s.scoreRunId());
    return m;
  }

  private static Map<String, Object> accuracyLine(AccuracySummary.Line l) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("run_id", l.runId());
    m.put("benchmark", l.benchmark());
    m.put("subset", l.subset());
    m.put("setting", l.setting());
    m.put("model", l.model());
    m.put("accuracy", l.accuracy().value());
    m.put(
        "accuracy_attempted", l.accuracyAttempted() == null ? null : l.accuracyAttempted().value());
    m.put("parse_rate", l.parseRate() == null ? null : l.parseRate().value());
    Long parsed = null;
    if (l.accuracyAttempted() != null) {
      parsed = l.accuracyAttempted().n();
    } else if (l.parseRate() != null) {
      // A parse rate without an attempted accuracy: nothing parsed.
      parsed = 0L;
    }
    m.put("n_parsed", parsed);
    return m;
  }

  private static Map<String, Object> comparison(Comparison c) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("run_id_a", c.runIdA());
    m.put("run_id_b", c.runIdB());
    m.put("benchmark", c.benchmark());
    m.put("subset", c.subset());
    m.put("setting_a", c.settingA());
    m.put("setting_b", c.settingB());
    m.put("metric", c.metric());
    m.put("n", c.n());
    m.put("value_a", finite(c.valueA()));
    m.put("value_b", finite(c.valueB()));
    m.put("diff", finite(c.diff()));
    m.put("ci_low", finite(c.ciLow()));
    m.put("ci_high", finite(c.ciHigh()));
    m.put("p_value", finite(c.pValue()));
    m.put("score_run_id", c.scoreRunId());
    return m;
  }

  private static Map<String, Object> fit(ScalingFit f) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("fit_id", f.fitId());
    m.put("benchmark", f.benchmark());
    m.put("setting", f.setting());
    m.put("metric", f.metric());
    m.put("subset", f.subset());
    m.put("label", f.label());
    m.put("generator", f.generator());
    m.put("token_count", f.tokenCount());
    m.put("count_tokenizer", f.countTokenizer());
    m.put("x_axis", f.axis());
    m.put("n_points", f.nPoints());
    m.put("intercept", finite(f.intercept()));
    m.put("slope", finite(f.slope()));
    m.put("slope_se", finite(f.slopeSe()));
    m.put("r2", finite(f.r2()));
    m.put("baseline_setting", f.baselineSetting());
    m.put("baseline_value", finite(f.baselineValue()));
    m.put("crossover_tokens", finite(f.crossoverTokens()));
    List<Map<String, Object>> points = new ArrayList<>();
    for (Point p : f.points()) {
      Map<String, Object> point = new LinkedHashMap<>();
      point.put("run_id", p.runId());
      point.put("tokens", p.tokens());
      point.put("value", finite(p.value()));
      point.put("fitted", p.tokens() > 0 ? finite(f.predict(p.tokens())) : null);
      points.add(point);
    }
    m.put("points", points);
    m.put("score_run_id", f.scoreRunId());
    return m;
  }

  private static Map<String, Object> recall(Recall r) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("run_id", r.runId());
    m.put("benchmark", r.benchmark());
    m.put("retriever", r.retriever());
    m.put("k", r.k());
    m.put("recall", finite(r.recall()));
    m.put("hits", r.hits());
    m.put("n", r.n());
    return m;
  }

  /** One behaviour run: its counts, every metric by subset|metric, and f1 per category. */
  private static Map<String, Object> behaviorRun(BehaviorRuns.Run r) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("run_id", r.runId());
    m.put("model", r.model());
    m.put("classified_by", r.classifiedBy());
    m.put("tasks", r.tasks());
    m.put("hard_tasks", r.hardTasks());
    m.put("metrics", r.metrics());
    m.put("category_f1", r.categoryF1());
    return m;
  }

  private static Map<String, Object> panelMean(BehaviorRuns.PanelMean p) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("metric", p.key());
    m.put("mean", p.mean());
    m.put("runs", p.runs());
    return m;
  }

  /**
   * One discussion turn: the group's metrics under their names (null when absent) and each agent's
   * accuracy under agent_accuracy.
   */
  private static Map<String, Object> discussionTurn(ReportData.DiscussionTurn t) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("score_run_id", t.scoreRunId());
    m.put("discussion_id", t.discussionId());
    m.put("discuss_run_id", t.discussRunId());
    m.put("benchmark", t.benchmark());
    m.put("iteration", t.iteration());
    m.put("turn", t.turn());
    m.put("n", t.questions());
    for (String metric : ReportData.DISCUSSION_METRICS) {
      m.put(metric, finite(t.metric(metric)));
    }
    t.metrics().forEach((metric, value) -> m.putIfAbsent(metric, finite(value)));
    Map<String, Object> agents = new LinkedHashMap<>();
    t.agentAccuracy().forEach((agent, value) -> agents.put(agent, finite(value)));
    m.put("agent_accuracy", agents);
    return m;
  }

  private static Map<String, Object> run(RunInfo r) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("run_id", r.runId());
    m.put("job", r.job());
    m.put("status", r.status());
    m.put("started_at", r.startedAt() == null ? null : r.startedAt().toString());
    m.put("ended_at", r.endedAt() == null ? null : r.endedAt().toString());
    m.put("git_sha", r.gitSha());
    m.put("infuse_version", r.infuseVersion());
    m.put("spark_version", r.sparkVersion());
    m.put("config_hash", r.configHash());
    m.put("config_json", r.configJson());
    m.put("add_bos", AccuracySummary.addBos(r));
    m.put("bos_token_id", AccuracySummary.bosTokenId(r));
    return m;
  }

  private static Double finite(Double value) {
    return value == null || value.isNaN() || value.isInfinite() ? null : value;
  }
}
