package dev.infuse.jobs.report;

import static dev.infuse.jobs.report.ReportFormat.html;
import static dev.infuse.jobs.report.ReportFormat.number;

import dev.infuse.jobs.report.ReportData.Comparison;
import dev.infuse.jobs.report.ReportData.Point;
import dev.infuse.jobs.report.ReportData.Recall;
import dev.infuse.jobs.report.ReportData.RunInfo;
import dev.infuse.jobs.report.ReportData.ScalingFit;
import dev.infuse.jobs.report.ReportData.Score;
import java.time.Instant;
import java.util.Base64;
import java.util.List;

/**
 * The report as one self-contained HTML page: inline CSS, charts as PNG data URIs, and a content
 * security policy that forbids every fetch, so the page renders the same offline, from a mail
 * attachment or a bucket. Every piece of text from the tables is escaped.
 *
 * <p>A few lines of inline script mark each chart {@code data-decoded="true"} once the browser has
 * decoded it (naturalWidth &gt; 0), and the body {@code data-charts-decoded="N/M"}: the browser
 * test reads these.
 */
public final class ReportHtml {
  private static final String CSS =
      """
      body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:2rem auto;max-width:1100px;color:#222;padding:0 1rem}
      h1{margin-bottom:.2rem}h2{margin-top:2.2rem;border-bottom:1px solid #ccc;padding-bottom:.2rem}
      .meta{color:#555;font-size:.9rem}.note{background:#fff6e0;border-left:4px solid #e0a000;padding:.4rem .8rem}
      table{border-collapse:collapse;margin:.8rem 0;font-size:.85rem}th,td{border:1px solid #ddd;padding:.25rem .5rem;text-align:left;vertical-align:top}
      th{background:#f4f4f4}td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
      figure{margin:1rem 0}figure img{max-width:100%;border:1px solid #eee}figcaption{color:#555;font-size:.85rem}
      pre{white-space:pre-wrap;word-break:break-all;font-size:.75rem;max-height:24rem;overflow:auto;background:#fafafa;padding:.5rem}
      code{font-size:.8rem}
      """;

  private static final String SCRIPT =
      """
      window.addEventListener('load', function () {
        var images = document.querySelectorAll('img.chart'), decoded = 0;
        images.forEach(function (img) {
          var ok = img.complete && img.naturalWidth > 0;
          img.setAttribute('data-decoded', ok ? 'true' : 'false');
          img.setAttribute('data-natural-width', String(img.naturalWidth));
          if (ok) { decoded++; }
        });
        document.body.setAttribute('data-charts-decoded', decoded + '/' + images.length);
      });
      """;

  private ReportHtml() {}

  /** The page for {@code data} with its rendered {@code charts}. */
  public static String render(
      String title, String reportRunId, Instant generatedAt, ReportData data, List<Chart> charts) {
    StringBuilder h = new StringBuilder(64 * 1024);
    h.append("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
        .append(
            "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; img-src data:;"
                + " style-src 'unsafe-inline'; script-src 'unsafe-inline'\">\n")
        .append("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
        .append("<title>")
        .append(html(title))
        .append("</title>\n<style>\n")
        .append(CSS)
        .append("</style>\n</head>\n")
        .append("<body data-report=\"infuse\" data-charts=\"")
        .append(charts.size())
        .append("\">\n")
        .append("<h1>")
        .append(html(title))
        .append("</h1>\n")
        .append("<p class=\"meta\">Generated ")
        .append(html(generatedAt.toString()))
        .append(" by run <code>")
        .append(html(reportRunId))
        .append("</code>. Score runs: ")
        .append(data.scoreRuns().isEmpty() ? "none" : codes(data.scoreRuns()))
        .append(". Every number here is also in <code>report.json</code>.</p>\n");
    for (var note : data.notes().entrySet()) {
      h.append("<p class=\"note\" data-table=\"")
          .append(html(note.getKey()))
          .append("\">")
          .append(html(note.getValue()))
          .append(".</p>\n");
    }

    h.append("<section id=\"scaling\">\n<h2>Scaling with synthetic tokens</h2>\n");
    if (data.fits().isEmpty()) {
      h.append("<p class=\"note\">No scaling fits to show.</p>\n");
    } else {
      h.append(
          "<p>Fit: metric = a + b&middot;ln(tokens); the slope b is per unit of natural log of tokens."
              + " The crossover is where the fitted line reaches the baseline. Each generator of"
              + " synthetic data gets its own line; the x-axis says which tokens it counts.</p>\n");
      figures(h, charts, "scaling");
      scalingTables(h, data.fits());
    }
    h.append("</section>\n");

    h.append("<section id=\"settings\">\n<h2>Settings compared</h2>\n");
    if (data.scores().isEmpty()) {
      h.append("<p class=\"note\">No scores to show.</p>\n");
    } else {
      figures(h, charts, "settings");
      accuracySummary(h, AccuracySummary.lines(data.scores()));
      scoresTable(h, data.scores());
    }
    h.append("</section>\n");

    h.append("<section id=\"comparisons\">\n<h2>Paired comparisons</h2>\n");
    if (data.comparisons().isEmpty()) {
      h.append("<p class=\"note\">No paired comparisons to show.</p>\n");
    } else {
      h.append(
          "<p>Paired bootstrap over the same questions: diff = b &minus; a, 95% CI and two-sided p-value.</p>\n");
      comparisonsTable(h, data.comparisons());
    }
    h.append("</section>\n");

    h.append("<section id=\"discussions\">\n<h2>Discussions</h2>\n");
    if (data.discussions().isEmpty()) {
      h.append("<p class=\"note\">No discussions to show.</p>\n");
    } else {
      h.append(
          "<p>MAPoRL's per-turn metrics of each scored discussion: majority-vote accuracy, mean"
              + " accuracy of all answers, consensus (questions where every agent agrees), the"
              + " share of answers that turned correct (improve) or wrong (decline) since the"
              + " previous turn, persuasion events, and each agent's accuracy.</p>\n");
      figures(h, charts, "discussions");
      discussionsTable(h, data.discussions());
    }
    h.append("</section>\n");

    h.append("<section id=\"behavior\">\n<h2>Clinical behaviour</h2>\n");
    if (data.behavior().isEmpty()) {
      h.append("<p class=\"note\">No behaviour runs to show.</p>\n");
    } else {
      h.append(
          "<p>Each behaviour answer run: macro-F1 of the behaviour it chose (reactive, proactive,"
              + " restraint) over types and over categories, the share of restraint tasks it"
              + " flagged (over-proactivity) and of proactive tasks it left silent"
              + " (under-proactivity), whether its correct flags named what was injected, MEDEC's"
              + " own metrics on MEDEC-derived tasks, and the same macro-F1s on the Hard subset"
              + " that mine-hard drew from the panel.</p>\n");
      behaviorPanel(h, BehaviorRuns.panelMeans(data.behavior()));
      behaviorTable(h, data.behavior());
      behaviorCategoryTable(h, data.behavior());
    }
    h.append("</section>\n");

    h.append("<section id=\"rag-recipes\">\n<h2>RAG recipes</h2>\n");
    if (data.ragRecipes().isEmpty()) {
      h.append("<p class=\"note\">No rag setting in these scores.</p>\n");
    } else {
      ragRecipesTable(h, data.ragRecipes());
    }
    h.append("</section>\n");

    h.append("<section id=\"recall\">\n<h2>Retrieval recall@k</h2>\n");
    if (data.recall().isEmpty()) {
      h.append("<p class=\"note\">No recall@k to show.</p>\n");
    } else {
      figures(h, charts, "recall");
      recallTable(h, data.recall());
    }
    h.append("</section>\n");

    h.append("<section id=\"runs\">\n<h2>Runs, configs and versions</h2>\n");
    runsTable(h, data.runs(), data.runsNotFound());
    h.append("</section>\n");

    h.append("<script>\n").append(SCRIPT).append("</script>\n</body>\n</html>\n");
    return h.toString();
  }

  private static void figures(StringBuilder h, List<Chart> charts, String section) {
    for (Chart chart : charts) {
      if (!chart.section().equals(section)) {
        continue;
      }
      h.append("<figure id=\"")
          .append(html(chart.id()))
          .append("\"><img class=\"chart\" width=\"")
          .append(ReportCharts.WIDTH)
          .append("\" height=\"")
          .append(ReportCharts.HEIGHT)
          .append("\" alt=\"")
          .append(html(chart.title()))
          .append("\" src=\"data:image/png;base64,")
          .append(Base64.getEncoder().encodeToString(chart.png()))
          .append("\"><figcaption>")
          .append(html(chart.title()))
          .append("</figcaption></figure>\n");
    }
  }

  private static void scalingTables(StringBuilder h, List<ScalingFit> fits) {
    h.append(
        "<table id=\"scaling-fits\">\n<thead><tr><th>benchmark</th><th>setting</th><th>metric</th>"
            + "<th>subset</th><th>sweep</th><th>generator</th><th>tokens counted</th><th>points</th>"
            + "<th>intercept a</th><th>slope b</th><th>slope SE</th><th>R&sup2;</th><th>baseline</th><th>crossover tokens</th>"
            + "<th>fit id</th></tr></thead>\n<tbody>\n");
    for (ScalingFit f : fits) {
      h.append("<tr data-fit-id=\"").append(html(f.fitId())).append("\">");
      cells(
          h,
          f.benchmark(),
          f.setting(),
          f.metric(),
          f.subset(),
          f.label() == null ? ReportFormat.NONE : f.label(),
          f.generator() == null ? "unknown" : f.generator(),
          f.axis());
      nums(
          h,
          String.valueOf(f.nPoints()),
          number(f.intercept()),
          number(f.slope()),
          number(f.slopeSe()),
          number(f.r2()));
      cells(
          h,
          f.baselineValue() == null
              ? ReportFormat.NONE
              : (f.baselineSetting() == null ? "" : f.baselineSetting() + " ")
                  + number(f.baselineValue()));
      nums(
          h,
          f.crossoverTokens() == null
              ? ReportFormat.NONE
              : ReportFormat.compact(f.crossoverTokens()));
      cells(h, f.fitId());
      h.append("</tr>\n");
    }
    h.append("</tbody></table>\n");
    h.append(
        "<table id=\"scaling-points\">\n<thead><tr><th>fit id</th><th>run</th><th>synthetic tokens</th>"
            + "<th>value</th><th>fitted</th></tr></thead>\n<tbody>\n");
    for (ScalingFit f : fits) {
      for (Point p : f.points()) {
        h.append("<tr>");
        cells(h, f.fitId(), p.runId());
        nums(
            h,
            String.valueOf(p.tokens()),
            number(p.value()),
            p.tokens() > 0 ? number(f.predict(p.tokens())) : ReportFormat.NONE);
        h.append("</tr>\n");
      }
    }
    h.append("</tbody></table>\n");
  }

  private static void scoresTable(StringBuilder h, List<Score> scores) {
    h.append(
        "<table id=\"scores\">\n<thead><tr><th>benchmark</th><th>subset</th><th>setting</th><th>model</th>"
            + "<th>metric</th><th>value</th><th>95% CI</th><th>n</th><th>synthetic tokens</th><th>prompt versions</th>"
            + "<th>run</th></tr></thead>\n<tbody>\n");
    for (Score s : scores) {
      h.append("<tr>");
      cells(h, s.benchmark(), s.subset(), s.setting(), s.model(), s.metric());
      nums(
          h,
          number(s.value()),
          ci(s.ciLow(), s.ciHigh()),
          String.valueOf(s.n()),
          s.syntheticTokens() == null ? ReportFormat.NONE : String.valueOf(s.syntheticTokens()));
      cells(h, String.join(", ", s.promptVersions()), s.runId());
      h.append("</tr>\n");
    }
    h.append("</tbody></table>\n");
  }

  /** Accuracy, attempted accuracy and parse rate side by side (the papers report both). */
  private static void accuracySummary(StringBuilder h, List<AccuracySummary.Line> lines) {
    if (lines.isEmpty()) {
      return;
    }
    h.append(
        "<p>accuracy = correct / all questions; accuracy attempted = correct / questions whose answer"
            + " parsed (EntiGraph's <code>_attempts_stats</code>; &mdash; where none parsed); parse rate ="
            + " parsed / all. Subset <code>entigraph_test</code> is EntiGraph's QuALITY test split.</p>\n");
    h.append(
        "<table id=\"accuracy-summary\">\n<thead><tr><th>benchmark</th><th>subset</th><th>setting</th><th>model</th>"
            + "<th>accuracy</th><th>accuracy attempted</th><th>parse rate</th><th>n</th><th>parsed</th>"
            + "<th>run</th></tr></thead>\n<tbody>\n");
    for (AccuracySummary.Line l : lines) {
      h.append("<tr>");
      cells(h, l.benchmark(), l.subset(), l.setting(), l.model());
      nums(
          h,
          withCi(l.accuracy()),
          withCi(l.accuracyAttempted()),
          withCi(l.parseRate()),
          String.valueOf(l.accuracy().n()),
          l.accuracyAttempted() == null
              ? (l.parseRate() == null ? ReportFormat.NONE : "0")
              : String.valueOf(l.accuracyAttempted().n()));
      cells(h, l.runId());
      h.append("</tr>\n");
    }
    h.append("</tbody></table>\n");
  }

  private static String withCi(Score s) {
    return s == null ? ReportFormat.NONE : number(s.value()) + " " + ci(s.ciLow(), s.ciHigh());
  }

  private static void comparisonsTable(StringBuilder h, List<Comparison> comparisons) {
    h.append(
        "<table id=\"comparisons\">\n<thead><tr><th>benchmark</th><th>subset</th><th>metric</th><th>a</th><th>b</th>"
            + "<th>n</th><th>value a</th><th>value b</th><th>diff (b &minus; a)</th><th>95% CI</th><th>p</th>"
            + "<th>runs (a, b)</th></tr></thead>\n<tbody>\n");
    for (Comparison c : comparisons) {
      h.append("<tr>");
      cells(h, c.benchmark(), c.subset(), c.metric(), c.settingA(), c.settingB());
      nums(
          h,
          String.valueOf(c.n()),
          number(c.valueA()),
          number(c.valueB()),
          number(c.diff()),
          ci(c.ciLow(), c.ciHigh()),
          ReportFormat.pValue(c.pValue()));
      cells(h, c.runIdA() + ", " + c.runIdB());
      h.append("</tr>\n");
    }
    h.append("</tbody></table>\n");
  }

  /** Each recipe's retrieval settings, one column per recipe, so that they read side by side. */
  private static void ragRecipesTable(StringBuilder h, List<RagRecipes.Recipe> recipes) {
    h.append("<table id=\"rag-recipes-table\">\n<thead><tr><th></th>");
    for (RagRecipes.Recipe recipe : recipes) {
      h.append("<th>").append(html(recipe.name())).append("</th>");
    }
    h.append("</tr></thead>\n<tbody>\n");
    for (String setting : recipes.get(0).settings().keySet()) {
      h.append("<tr><th>").append(html(setting)).append("</th>");
      for (RagRecipes.Recipe recipe : recipes) {
        cells(h, recipe.settings().getOrDefault(setting, ""));
      }
      h.append("</tr>\n");
    }
    h.append("</tbody></table>\n");
  }

  private static void discussionsTable(StringBuilder h, List<ReportData.DiscussionTurn> turns) {
    java.util.Set<String> agents = new java.util.TreeSet<>();
    turns.forEach(t -> agents.addAll(t.agentAccuracy().keySet()));
    h.append(
        "<table id=\"discussions-table\">\n<thead><tr><th>benchmark</th><th>iteration</th>"
            + "<th>discussion</th><th>turn</th><th>questions</th><th>majority accuracy</th>"
            + "<th>accuracy</th><th>consensus</th><th>improve</th><th>decline</th>"
            + "<th>persuasion events</th>");
    for (String agent : agents) {
      h.append("<th>").append(html(agent)).append(" accuracy</th>");
    }
    h.append("<th>discuss run</th><th>score run</th></tr></thead>\n<tbody>\n");
    for (ReportData.DiscussionTurn t : turns) {
      h.append("<tr data-discussion-id=\"").append(html(t.discussionId())).append("\">");
      cells(h, t.benchmark(), t.iteration() == null ? ReportFormat.NONE : "" + t.iteration());
      cells(h, t.discussionId());
      nums(
          h,
          String.valueOf(t.turn()),
          String.valueOf(t.questions()),
          number(t.metric("majority_accuracy")),
          number(t.metric("accuracy")),
          number(t.metric("consensus_rate")),
          number(t.metric("improve_ratio")),
          number(t.metric("decline_ratio")),
          number(t.metric("persuasion_events")));
      for (String agent : agents) {
        nums(h, number(t.agentAccuracy().get(agent)));
      }
      cells(h, t.discussRunId(), t.scoreRunId());
      h.append("</tr>\n");
    }
    h.append("</tbody></table>\n");
  }

  private static void behaviorPanel(StringBuilder h, List<BehaviorRuns.PanelMean> means) {
    if (means.isEmpty()) {
      return;
    }
    h.append("<ul id=\"behavior-panel\">\n");
    for (BehaviorRuns.PanelMean mean : means) {
      h.append("<li>panel mean ")
          .append(html(BehaviorRuns.SHOWN.get(mean.key())))
          .append(": <span class=\"num\">")
          .append(number(mean.mean()))
          .append("</span> over ")
          .append(mean.runs())
          .append(" run(s)</li>\n");
    }
    h.append("</ul>\n");
  }

  private static void behaviorTable(StringBuilder h, List<BehaviorRuns.Run> runs) {
    h.append("<table id=\"behavior-table\">\n<thead><tr><th>run</th><th>model</th><th>tasks</th>");
    BehaviorRuns.SHOWN
        .values()
        .forEach(name -> h.append("<th>").append(html(name)).append("</th>"));
    h.append("<th>Hard tasks</th><th>classified by</th></tr></thead>\n<tbody>\n");
    for (BehaviorRuns.Run r : runs) {
      h.append("<tr data-run-id=\"").append(html(r.runId())).append("\">");
      cells(h, r.runId(), r.model());
      nums(h, String.valueOf(r.tasks()));
      for (String key : BehaviorRuns.SHOWN.keySet()) {
        nums(h, number(r.metric(key)));
      }
      nums(h, r.hardTasks() == 0 ? ReportFormat.NONE : String.valueOf(r.hardTasks()));
      cells(h, r.classifiedBy());
      h.append("</tr>\n");
    }
    h.append("</tbody></table>\n");
  }

  private static void behaviorCategoryTable(StringBuilder h, List<BehaviorRuns.Run> runs) {
    java.util.Set<String> categories = new java.util.TreeSet<>();
    runs.forEach(r -> categories.addAll(r.categoryF1().keySet()));
    if (categories.isEmpty()) {
      return;
    }
    h.append("<table id=\"behavior-categories-table\">\n<thead><tr><th>run</th>");
    categories.forEach(c -> h.append("<th>").append(html(c)).append(" F1</th>"));
    h.append("</tr></thead>\n<tbody>\n");
    for (BehaviorRuns.Run r : runs) {
      h.append("<tr>");
      cells(h, r.runId());
      for (String category : categories) {
        nums(h, number(r.categoryF1().get(category)));
      }
      h.append("</tr>\n");
    }
    h.append("</tbody></table>\n");
  }

  private static void recallTable(StringBuilder h, List<Recall> recall) {
    h.append(
        "<table id=\"recall-table\">\n<thead><tr><th>benchmark</th><th>retriever</th><th>k</th><th>recall@k</th>"
            + "<th>hits</th><th>n</th><th>run</th></tr></thead>\n<tbody>\n");
    for (Recall r : recall) {
      h.append("<tr>");
      cells(h, r.benchmark(), r.retriever());
      nums(
          h,
          String.valueOf(r.k()),
          number(r.recall()),
          String.valueOf(r.hits()),
          String.valueOf(r.n()));
      cells(h, r.runId());
      h.append("</tr>\n");
    }
    h.append("</tbody></table>\n");
  }

  private static void runsTable(StringBuilder h, List<RunInfo> runs, List<String> notFound) {
    if (runs.isEmpty()) {
      h.append("<p class=\"note\">No runs to show.</p>\n");
    } else {
      h.append(
          "<table id=\"runs-table\">\n<thead><tr><th>run</th><th>job</th><th>status</th><th>started (UTC)</th>"
              + "<th>git sha</th><th>infuse</th><th>spark</th><th>config hash</th><th>loglikelihood</th><th>config</th></tr></thead>\n<tbody>\n");
      for (RunInfo r : runs) {
        h.append("<tr>");
        cells(
            h,
            r.runId(),
            r.job(),
            r.status(),
            r.startedAt() == null ? "" : r.startedAt().toString(),
            r.gitSha(),
            r.infuseVersion(),
            r.sparkVersion(),
            r.configHash(),
            AccuracySummary.bos(r) == null ? "" : AccuracySummary.bos(r));
        h.append("<td><details><summary>config</summary><pre>")
            .append(html(r.configJson()))
            .append("</pre></details></td>");
        h.append("</tr>\n");
      }
      h.append("</tbody></table>\n");
    }
    if (!notFound.isEmpty()) {
      h.append("<p class=\"note\">Not in the runs table: ")
          .append(codes(notFound))
          .append(".</p>\n");
    }
  }

  private static String ci(Double low, Double high) {
    return low == null && high == null
        ? ReportFormat.NONE
        : "[" + number(low) + ", " + number(high) + "]";
  }

  private static String codes(List<String> ids) {
    StringBuilder out = new StringBuilder();
    for (String id : ids) {
      out.append(out.length() == 0 ? "" : ", ").append("<code>").append(html(id)).append("</code>");
    }
    return out.toString();
  }

  private static void cells(StringBuilder h, String... values) {
    for (String value : values) {
      h.append("<td>").append(html(value)).append("</td>");
    }
  }

  private static void nums(StringBuilder h, String... values) {
    for (String value : values) {
      h.append("<td class=\"num\">").append(html(value)).append("</td>");
    }
  }
}
