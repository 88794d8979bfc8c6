package dev.infuse.jobs.report;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.infuse.jobs.report.ReportData.RunInfo;
import dev.infuse.jobs.report.ReportData.Score;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Both accuracies and the parse rate in report.html and report.json, and the BOS convention of a
 * loglikelihood run in the run info; no Spark: the renderers take plain values.
 */
class AccuracySummaryTest {
  private static Score score(String run, String subset, String metric, double value, long n) {
    return new Score(
        run,
        "quality",
        subset,
        "trained",
        "tiny",
        metric,
        value,
        n,
        value - 0.1,
        Math.min(1, value + 0.1),
        null,
        "h",
        List.of("quality-mcq@1"),
        "sha",
        "score-1");
  }

  private static RunInfo run(String id, Map<String, Long> counts) {
    return new RunInfo(
        id,
        "answer",
        "succeeded",
        "h",
        "{}",
        "sha",
        "0.1",
        "3.5",
        Instant.EPOCH,
        Instant.EPOCH,
        counts);
  }

  private static ReportData data() {
    return new ReportData(
        List.of("score-1"),
        List.of(
            score("ans-gen", "all", "accuracy", 2 / 6.0, 6),
            score("ans-gen", "all", "accuracy_attempted", 0.5, 4),
            score("ans-gen", "all", "parse_rate", 4 / 6.0, 6),
            score("ans-gen", "entigraph_test", "accuracy", 0.25, 4),
            score("ans-gen", "entigraph_test", "parse_rate", 0.5, 4),
            score("ans-gen", "entigraph_test", "accuracy_attempted", 0.5, 2),
            score("ans-none", "all", "accuracy", 0.0, 6),
            score("ans-none", "all", "parse_rate", 0.0, 6),
            score("ans-ll", "all", "acc_norm", 0.5, 6),
            // A score run from before the new metrics: accuracy alone.
            score("ans-old", "all", "accuracy", 0.5, 6)),
        List.of(),
        List.of(),
        List.of(),
        List.of(
            run("ans-gen", Map.of("predictions", 6L)),
            run("ans-ll", Map.of("loglikelihood.add_bos", 1L, "loglikelihood.bos_token_id", 1L)),
            run("ans-ll0", Map.of("loglikelihood.add_bos", 0L))),
        List.of(),
        List.of(),
        Map.of());
  }

  @Test
  void linesPairTheAccuraciesAndTheParseRateOfEachRunAndSubset() {
    List<AccuracySummary.Line> lines = AccuracySummary.lines(data().scores());
    assertThat(lines).hasSize(4);
    assertThat(lines.get(3).parseRate()).isNull();
    AccuracySummary.Line gen = lines.get(0);
    assertThat(gen.subset()).isEqualTo("all");
    assertThat(gen.accuracy().value()).isEqualTo(2 / 6.0);
    assertThat(gen.accuracyAttempted().value()).isEqualTo(0.5);
    assertThat(gen.parseRate().value()).isEqualTo(4 / 6.0);
    assertThat(lines.get(1).subset()).isEqualTo("entigraph_test");
    AccuracySummary.Line none = lines.get(2);
    assertThat(none.runId()).isEqualTo("ans-none");
    assertThat(none.accuracyAttempted()).isNull();
  }

  @Test
  void theHtmlAndJsonShowBothAccuraciesTheParseRateAndTheBosConvention() throws Exception {
    ReportData data = data();
    String html = ReportHtml.render("t", "report-1", Instant.EPOCH, data, List.of());
    String table =
        html.substring(
            html.indexOf("<table id=\"accuracy-summary\""), html.indexOf("<table id=\"scores\""));
    assertThat(table)
        .contains("<th>accuracy attempted</th>", "<th>parse rate</th>")
        .contains("<td>entigraph_test</td>");
    // ans-none: nothing parsed, so no attempted accuracy and 0 parsed.
    String none = table.substring(table.indexOf("<td>ans-none</td>") - 400);
    assertThat(none).contains("<td class=\"num\">" + ReportFormat.NONE + "</td>");
    assertThat(html).contains("<td>BOS (token 1)</td>").contains("<td>no BOS</td>");

    JsonNode json =
        new ObjectMapper()
            .readTree(ReportJson.render("t", "report-1", Instant.EPOCH, data, List.of()));
    JsonNode first = json.get("accuracy_summary").get(0);
    assertThat(first.get("accuracy").asDouble()).isEqualTo(2 / 6.0);
    assertThat(first.get("accuracy_attempted").asDouble()).isEqualTo(0.5);
    assertThat(first.get("parse_rate").asDouble()).isEqualTo(4 / 6.0);
    assertThat(first.get("n_parsed").asLong()).isEqualTo(4);
    JsonNode none2 = json.get("accuracy_summary").get(2);
    assertThat(none2.get("accuracy_attempted").isNull()).isTrue();
    assertThat(none2.get("n_parsed").asLong()).isZero();
    JsonNode old = json.get("accuracy_summary").get(3);
    assertThat(old.get("parse_rate").isNull()).isTrue();
    assertThat(old.get("n_parsed").isNull()).isTrue();
    JsonNode runs = json.get("runs");
    assertThat(runs.get(0).get("add_bos").isNull()).isTrue();
    assertThat(runs.get(1).get("add_bos").asBoolean()).isTrue();
    assertThat(runs.get(1).get("bos_token_id").asLong()).isEqualTo(1);
    assertThat(runs.get(2).get("add_bos").asBoolean()).isFalse();
    assertThat(runs.get(2).get("bos_token_id").isNull()).isTrue();
  }
}
