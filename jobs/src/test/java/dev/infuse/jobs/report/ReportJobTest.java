package dev.infuse.jobs.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.infuse.jobs.SparkTestSession;
import dev.infuse.jobs.SparkTestSession.CliResult;
import dev.infuse.jobs.io.Warehouse;
import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.imageio.ImageIO;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;

class ReportJobTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private final SparkSession spark = SparkTestSession.get();

  @Test
  void reportsTheLatestScoreRunWithEveryNumberInReportJsonAndTheHtml() throws Exception {
    Path warehouse = SparkTestSession.tempDir("report");
    ReportFixtures.write(spark, warehouse);

    CliResult result = SparkTestSession.cli("report", "--warehouse", warehouse.toString());
    assertThat(result.code()).as(result.toString()).isZero();
    Path dir = warehouse.resolve("reports").resolve(ReportFixtures.SCORE_RUN);
    assertThat(result.out())
        .contains("report: " + dir.resolve("report.html"))
        .contains("report: 7 score(s), 2 comparison(s), 1 scaling fit(s), 6 recall row(s)")
        .doesNotContain("note:");
    JsonNode json = JSON.readTree(dir.resolve("report.json").toFile());
    String html = Files.readString(dir.resolve("report.html"));

    assertThat(json.get("score_runs")).hasSize(1);
    assertThat(json.get("score_runs").get(0).asText()).isEqualTo(ReportFixtures.SCORE_RUN);
    assertThat(json.get("notes").size()).isZero();
    Map<String, Double> all = new HashMap<>();
    for (JsonNode s : json.get("scores")) {
      assertThat(s.get("score_run_id").asText()).isEqualTo(ReportFixtures.SCORE_RUN);
      if (s.get("subset").asText().equals("all")) {
        all.put(s.get("run_id").asText(), s.get("value").asDouble());
      } else {
        assertThat(s.get("value").asDouble()).isEqualTo(ReportFixtures.DIFFICULT_RAG);
      }
    }
    assertThat(all).isEqualTo(ReportFixtures.valueByRun());
    for (Object[] s : ReportFixtures.SCORES) {
      assertThat(html)
          .contains(
              "<td class=\"num\">"
                  + ReportFormat.number((Double) s[2])
                  + "</td><td class=\"num\">["
                  + ReportFormat.number((Double) s[3])
                  + ", "
                  + ReportFormat.number((Double) s[4])
                  + "]</td>");
    }

    JsonNode comparison = json.get("score_comparisons").get(0);
    assertThat(comparison.get("setting_a").asText()).isEqualTo("closed_book");
    assertThat(comparison.get("diff").asDouble()).isEqualTo(0.125);
    assertThat(comparison.get("p_value").asDouble()).isEqualTo(0.00004);
    assertThat(json.get("score_comparisons").get(1).get("ci_low").asDouble()).isEqualTo(-0.0313);
    assertThat(html)
        .contains(
            "<td class=\"num\">0.0625</td><td class=\"num\">[-0.0313, 0.1563]</td>"
                + "<td class=\"num\">0.2180</td>")
        .contains("<td class=\"num\">&lt; 0.0001</td>");

    JsonNode fit = json.get("scaling_fits").get(0);
    assertThat(fit.get("slope").asDouble()).isEqualTo(ReportFixtures.SLOPE);
    assertThat(fit.get("slope_se").asDouble()).isEqualTo(ReportFixtures.SLOPE_SE);
    assertThat(fit.get("r2").asDouble()).isEqualTo(ReportFixtures.R2);
    assertThat(fit.get("crossover_tokens").asDouble()).isEqualTo(ReportFixtures.CROSSOVER);
    assertThat(fit.get("points")).hasSize(3);
    assertThat(fit.get("points").get(2).get("tokens").asLong()).isEqualTo(10_000_000L);
    assertThat(fit.get("points").get(2).get("fitted").asDouble())
        .isCloseTo(ReportFixtures.INTERCEPT + ReportFixtures.SLOPE * Math.log(1e7), within(1e-12));
    assertThat(html)
        .contains(
            "<td class=\"num\">0.0369</td><td class=\"num\">0.0006</td><td class=\"num\">0.9997</td>"
                + "<td>rag 0.5000</td><td class=\"num\">"
                + ReportFormat.compact(ReportFixtures.CROSSOVER)
                + "</td>");

    // The latest retrieve run only: the older bm25 k=5 row (recall 0.1) is left out.
    List<double[]> recall = new ArrayList<>();
    json.get("retrieval_recall")
        .forEach(
            r -> {
              assertThat(r.get("run_id").asText()).isEqualTo(ReportFixtures.RETRIEVE_RUN);
              recall.add(new double[] {r.get("k").asInt(), r.get("recall").asDouble()});
            });
    assertThat(recall).hasSize(ReportFixtures.RECALL.size());
    for (int i = 0; i < recall.size(); i++) {
      assertThat(recall.get(i)[1]).isEqualTo((Double) ReportFixtures.RECALL.get(i)[2]);
    }

    // The runs behind the numbers, with their configs; the older score run is not among them.
    List<String> runs = new ArrayList<>();
    json.get("runs").forEach(r -> runs.add(r.get("run_id").asText()));
    assertThat(runs)
        .contains(ReportFixtures.SCORE_RUN, ReportFixtures.RETRIEVE_RUN, "answer-cb", "answer-rag")
        .doesNotContain(
            ReportFixtures.OLD_SCORE_RUN, ReportFixtures.OLD_RETRIEVE_RUN, "answer-old");
    assertThat(json.get("runs_not_found"))
        .extracting(JsonNode::asText)
        .containsExactlyInAnyOrder("answer-t5", "answer-t6", "answer-t7", "answer-trag");
    assertThat(html).contains("<td>abc1234</td><td>0.1.0-SNAPSHOT</td><td>3.5.9</td>");

    // Discussions: every turn of the latest score run's discussions, the older run's left out.
    JsonNode turns = json.get("discussion_scores");
    assertThat(turns).hasSize(ReportFixtures.DISCUSSIONS.size());
    for (int i = 0; i < turns.size(); i++) {
      Object[] d = ReportFixtures.DISCUSSIONS.get(i);
      JsonNode t = turns.get(i);
      assertThat(t.get("score_run_id").asText()).isEqualTo(ReportFixtures.SCORE_RUN);
      assertThat(t.get("discussion_id").asText()).isEqualTo(d[0]);
      assertThat(t.get("iteration").isNull()).isEqualTo(d[1] == null);
      assertThat(t.get("turn").asInt()).isEqualTo(d[2]);
      assertThat(t.get("n").asLong()).isEqualTo(8L);
      assertThat(t.get("majority_accuracy").asDouble()).isEqualTo(d[3]);
      assertThat(t.get("consensus_rate").asDouble()).isEqualTo(d[5]);
      assertThat(t.get("improve_ratio").isNull()).isEqualTo(d[6] == null);
      assertThat(t.get("agent_accuracy").get("agent-0").asDouble()).isEqualTo(d[9]);
      assertThat(t.get("agent_accuracy").get(ReportFixtures.NASTY_AGENT).asDouble())
          .isEqualTo(d[10]);
    }
    assertThat(turns.get(1).get("persuasion_events").asDouble()).isEqualTo(2.0);
    assertThat(json.get("charts").findValuesAsText("title"))
        .contains(
            "gsm8k: discussion maporl-a by turn",
            "gsm8k: discussion maporl-co (iteration 1) by turn");
    assertThat(html)
        .contains("<table id=\"discussions-table\">")
        .contains("<th>agent&lt;1&gt;&amp; accuracy</th>")
        .contains("<figcaption>gsm8k: discussion maporl-co (iteration 1) by turn</figcaption>")
        .contains(
            "<td>gsm8k</td><td>–</td><td>maporl-a</td><td class=\"num\">1</td>"
                + "<td class=\"num\">8</td><td class=\"num\">0.6250</td>"
                + "<td class=\"num\">0.5625</td><td class=\"num\">0.5000</td>"
                + "<td class=\"num\">0.1875</td><td class=\"num\">0.0625</td>"
                + "<td class=\"num\">2.0000</td><td class=\"num\">0.6250</td>"
                + "<td class=\"num\">0.5000</td>")
        .doesNotContain("maporl-old");
    assertThat(runs).contains(ReportFixtures.DISCUSS_RUN);

    // Behaviour: each run's headline metrics on all tasks and on Hard, and the panel's means.
    JsonNode behavior = json.get("behavior_runs");
    assertThat(behavior).hasSize(2);
    assertThat(behavior.get(0).get("run_id").asText()).isEqualTo(ReportFixtures.BEHAVIOR_RUN_A);
    assertThat(behavior.get(0).get("tasks").asLong()).isEqualTo(40L);
    assertThat(behavior.get(0).get("hard_tasks").asLong()).isEqualTo(12L);
    assertThat(behavior.get(0).get("metrics").get("hard/types|macro_f1").asDouble()).isEqualTo(0.2);
    assertThat(behavior.get(1).get("category_f1").get("restraint").asDouble()).isEqualTo(0.6);
    Map<String, Double> panel = new HashMap<>();
    Map<String, Integer> panelRuns = new HashMap<>();
    json.get("behavior_panel")
        .forEach(
            p -> {
              panel.put(p.get("metric").asText(), p.get("mean").asDouble());
              panelRuns.put(p.get("metric").asText(), p.get("runs").asInt());
            });
    assertThat(panel.get("types|macro_f1")).isCloseTo(0.5, within(1e-12));
    assertThat(panel.get("hard/types|macro_f1")).isCloseTo(0.1, within(1e-12));
    // Only run A has a Hard macro-F1 over categories: the mean says over how many runs.
    assertThat(panel.get("hard/categories|macro_f1")).isCloseTo(0.1, within(1e-12));
    assertThat(panelRuns).containsEntry("hard/categories|macro_f1", 1);
    assertThat(html)
        .contains("<section id=\"behavior\">")
        .contains(
            "<li>panel mean macro-F1 (types): <span class=\"num\">0.5000</span> over 2 run(s)</li>")
        .contains(
            "<li>panel mean Hard macro-F1 (types): <span class=\"num\">0.1000</span> over 2"
                + " run(s)</li>")
        .contains(
            "<tr data-run-id=\""
                + ReportFixtures.BEHAVIOR_RUN_A
                + "\"><td>"
                + ReportFixtures.BEHAVIOR_RUN_A
                + "</td><td>openai:m-"
                + ReportFixtures.BEHAVIOR_RUN_A
                + "</td><td class=\"num\">40</td><td class=\"num\">0.6000</td>"
                + "<td class=\"num\">0.5000</td><td class=\"num\">0.7000</td>"
                + "<td class=\"num\">0.1000</td><td class=\"num\">0.2500</td>"
                + "<td class=\"num\">0.9000</td><td class=\"num\">0.7500</td>"
                + "<td class=\"num\">–</td><td class=\"num\">–</td>"
                + "<td class=\"num\">0.2000</td><td class=\"num\">0.1000</td>"
                + "<td class=\"num\">12</td>");
    assertThat(runs).contains(ReportFixtures.BEHAVIOR_RUN_A, ReportFixtures.BEHAVIOR_RUN_B);

    // Escaped everywhere: the nasty model name and a config holding </pre><script>.
    assertThat(html)
        .doesNotContain("<script>alert")
        .contains("tiny&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" + "&amp;&#39;co&#39;")
        .contains("&lt;/pre&gt;&lt;script&gt;alert(1)&lt;/script&gt;");
    assertThat(html.split("<script>", -1)).as("only the report's own script").hasSize(2);

    // Self-contained: no URL but data: ones, every chart an inline PNG that decodes.
    assertThat(html)
        .doesNotContainPattern("(?i)(src|href)\\s*=\\s*\"(?!data:)")
        .doesNotContain("http://", "https://");
    Matcher images =
        Pattern.compile("<img class=\"chart\"[^>]* src=\"data:image/png;base64,([A-Za-z0-9+/=]+)\"")
            .matcher(html);
    int count = 0;
    while (images.find()) {
      BufferedImage image =
          ImageIO.read(new ByteArrayInputStream(Base64.getDecoder().decode(images.group(1))));
      assertThat(image.getWidth()).isEqualTo(ReportCharts.WIDTH);
      count++;
    }
    // One scaling chart, one settings chart (subset 'all'), one recall chart, one per discussion.
    assertThat(count).isEqualTo(5).isEqualTo(json.get("charts").size());

    Row run =
        new Warehouse(spark, warehouse.toString()).read("runs").filter("job = 'report'").head();
    assertThat(run.<String>getAs("status")).isEqualTo("succeeded");
    assertThat(run.<String, Long>getJavaMap(run.fieldIndex("counts"))).containsEntry("charts", 5L);
  }

  @Test
  void aWarehouseWithoutEvaluationTablesGivesAReportThatSaysSo() throws Exception {
    Path warehouse = SparkTestSession.tempDir("report-empty");
    Path out = SparkTestSession.tempDir("report-out").resolve("nested");
    CliResult result =
        SparkTestSession.cli(
            "report",
            "--warehouse",
            warehouse.toString(),
            "--output",
            out.toString(),
            "--title",
            "Empty <report>");
    assertThat(result.code()).as(result.toString()).isZero();
    assertThat(result.out())
        .contains(
            "note: table scores does not exist in the warehouse",
            "note: table retrieval_recall does not exist in the warehouse",
            "report: " + out.resolve("report.html"));
    String html = Files.readString(out.resolve("report.html"));
    assertThat(html)
        .contains(
            "<title>Empty &lt;report&gt;</title>",
            "No scores to show.",
            "No scaling fits to show.",
            "No paired comparisons to show.",
            "No recall@k to show.",
            "table score_comparisons does not exist",
            "No discussions to show.",
            "table discussion_scores does not exist in the warehouse",
            "No behaviour runs to show.",
            "table behavior_scores does not exist in the warehouse")
        .doesNotContain("<img");
    JsonNode json = JSON.readTree(out.resolve("report.json").toFile());
    assertThat(json.get("scores")).isEmpty();
    assertThat(json.get("discussion_scores")).isEmpty();
    assertThat(json.get("notes").get("discussion_scores").asText())
        .isEqualTo("table discussion_scores does not exist in the warehouse");
    assertThat(json.get("notes").get("scaling_fits").asText())
        .isEqualTo("table scaling_fits does not exist in the warehouse");
    assertThat(json.get("title").asText()).isEqualTo("Empty <report>");
  }

  @Test
  void chosenScoreRunsAndAllRetrieveRunsAreReportedAndAMissingColumnIsANoteNotACrash()
      throws Exception {
    Path warehouse = SparkTestSession.tempDir("report-select");
    ReportFixtures.writeScores(spark, warehouse);
    ReportFixtures.writeRecall(spark, warehouse);
    // A scaling_fits table of another shape: left out with a note.
    spark
        .sql("SELECT 'f' AS fit_id, 0.5 AS slope")
        .write()
        .format("delta")
        .save(warehouse.resolve("scaling_fits").toString());
    // discussion_scores without the columns of a later contract: a note too.
    spark
        .sql("SELECT 's' AS score_run_id, 'd' AS discussion_id, 0 AS turn")
        .write()
        .format("delta")
        .save(warehouse.resolve("discussion_scores").toString());
    Path out = warehouse.resolve("old");
    CliResult result =
        SparkTestSession.cli(
            "report",
            "--warehouse",
            warehouse.toString(),
            "--score-run",
            ReportFixtures.OLD_SCORE_RUN,
            "--retrieve-run",
            "all",
            "--set",
            "report.output=old");
    assertThat(result.code()).as(result.toString()).isZero();
    JsonNode json = JSON.readTree(out.resolve("report.json").toFile());
    assertThat(json.get("scores")).hasSize(1);
    assertThat(json.get("scores").get(0).get("value").asDouble()).isEqualTo(0.1111);
    assertThat(json.get("retrieval_recall")).hasSize(ReportFixtures.RECALL.size() + 1);
    assertThat(json.get("notes").get("scaling_fits").asText())
        .startsWith("table scaling_fits lacks the columns [benchmark,");
    assertThat(json.get("notes").get("discussion_scores").asText())
        .startsWith("table discussion_scores lacks the columns [discuss_run_id, benchmark,");
    assertThat(json.get("discussion_scores")).isEmpty();
    assertThat(json.get("notes").get("runs").asText())
        .isEqualTo("table runs does not exist in the warehouse");
  }
}
