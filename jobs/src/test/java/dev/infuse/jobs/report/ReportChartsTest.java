package dev.infuse.jobs.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.infuse.jobs.report.ReportData.Point;
import dev.infuse.jobs.report.ReportData.Recall;
import dev.infuse.jobs.report.ReportData.ScalingFit;
import dev.infuse.jobs.report.ReportData.Score;
import java.awt.Rectangle;
import java.awt.geom.Rectangle2D;
import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.List;
import javax.imageio.ImageIO;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.axis.SymbolAxis;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.ui.RectangleEdge;
import org.jfree.data.xy.XYDataset;
import org.jfree.data.xy.YIntervalSeriesCollection;
import org.junit.jupiter.api.Test;

class ReportChartsTest {
  private static final ScalingFit FIT =
      new ScalingFit(
          "f",
          "quality",
          "trained",
          "accuracy",
          3,
          0.1,
          0.03,
          0.002,
          0.99,
          "rag",
          0.6,
          Math.exp((0.6 - 0.1) / 0.03),
          List.of(
              new Point("r5", 100_000, 0.45),
              new Point("r6", 1_000_000, 0.52),
              new Point("r7", 10_000_000, 0.58)),
          "score-1");

  @Test
  void theScalingCurveHasALogTokenAxisOnWhichDecadesAreEvenlySpaced() {
    JFreeChart chart = ReportCharts.scaling(FIT);
    XYPlot plot = chart.getXYPlot();
    assertThat(plot.getDomainAxis()).isInstanceOf(LogAxis.class);
    Rectangle2D area = new Rectangle(0, 0, 700, 400);
    LogAxis x = (LogAxis) plot.getDomainAxis();
    double d5 = x.valueToJava2D(1e5, area, RectangleEdge.BOTTOM);
    double d6 = x.valueToJava2D(1e6, area, RectangleEdge.BOTTOM);
    double d7 = x.valueToJava2D(1e7, area, RectangleEdge.BOTTOM);
    assertThat(d7 - d6).isCloseTo(d6 - d5, within(1e-6));
    assertThat(d6 - d5).isPositive();
    // Ticks at whole decades, labelled as token counts.
    assertThat(x.getTickUnit().getSize()).isEqualTo(1.0);
    assertThat(x.getNumberFormatOverride().format(1e6)).isEqualTo("1M");
    assertThat(x.getNumberFormatOverride().format(1e5)).isEqualTo("100k");
  }

  @Test
  void theXAxisSaysWhichTokensItCountsAndTwoGeneratorsShareOneChart() {
    // A fit from a table without the new columns counts tokens written to the shards.
    assertThat(ReportCharts.scaling(FIT).getXYPlot().getDomainAxis().getLabel())
        .isEqualTo(
            "synthetic tokens written to the shards (shard tokenizer, with repetitions) (log scale)");
    String llama = "/models/llama/tokenizer.json";
    List<ScalingFit> fits =
        List.of(
            generatorFit("a", "openai:small", 0.1, llama),
            generatorFit("b", "openai:large", 0.2, llama));
    JFreeChart chart = ReportCharts.scaling(fits);
    assertThat(chart.getXYPlot().getDomainAxis().getLabel())
        .isEqualTo("unique synthetic tokens (tokenizer " + llama + ") (log scale)");
    assertThat(chart.getTitle().getText())
        .isEqualTo("quality: trained accuracy vs unique synthetic tokens");
    XYDataset data = chart.getXYPlot().getDataset();
    // Runs and line per generator, then the one shared baseline.
    assertThat(data.getSeriesCount()).isEqualTo(5);
    assertThat(data.getSeriesKey(0).toString()).isEqualTo("runs openai:small");
    assertThat(data.getSeriesKey(2).toString()).isEqualTo("runs openai:large");
    assertThat(data.getSeriesKey(3).toString()).startsWith("fit openai:large: 0.2");
    assertThat(data.getSeriesKey(4).toString()).isEqualTo("rag baseline 0.6000");
    for (int i = 0; i < data.getItemCount(3); i++) {
      assertThat(data.getYValue(3, i))
          .isCloseTo(0.2 + 0.03 * Math.log(data.getXValue(3, i)), within(1e-12));
    }

    // The report draws fits of one axis on one chart, and another tokenizer's on another.
    ReportData report =
        new ReportData(
            List.of(),
            List.of(),
            List.of(),
            List.of(fits.get(0), fits.get(1), generatorFit("c", "openai:small", 0.1, "default")),
            List.of(),
            List.of(),
            List.of(),
            List.of(),
            java.util.Map.of());
    List<Chart> charts = Chart.all(report);
    assertThat(charts).extracting(Chart::id).containsExactly("scaling-1", "scaling-2");
  }

  @Test
  void labelledSweepsOfOneGeneratorAreToldApartAndEachSubsetHasItsOwnChart() {
    String generator = "extractive:extractive-v1";
    List<ScalingFit> fits = new java.util.ArrayList<>();
    for (String subset : List.of("held_out", "trained")) {
      for (String mixture : List.of("facts-qa-only", "facts-mixed")) {
        ScalingFit plain = generatorFit(mixture + subset, generator, 0.1, "default");
        fits.add(
            new ScalingFit(
                plain.fitId(),
                plain.benchmark(),
                plain.setting(),
                plain.metric(),
                plain.nPoints(),
                plain.intercept(),
                plain.slope(),
                plain.slopeSe(),
                plain.r2(),
                plain.baselineSetting(),
                plain.baselineValue(),
                plain.crossoverTokens(),
                plain.points(),
                plain.scoreRunId(),
                plain.generator(),
                plain.tokenCount(),
                plain.countTokenizer(),
                subset,
                mixture));
      }
    }
    JFreeChart chart = ReportCharts.scaling(fits.subList(0, 2));
    XYDataset data = chart.getXYPlot().getDataset();
    assertThat(data.getSeriesKey(0).toString()).isEqualTo("runs facts-qa-only");
    assertThat(data.getSeriesKey(2).toString()).isEqualTo("runs facts-mixed");
    assertThat(chart.getTitle().getText())
        .isEqualTo("quality: trained accuracy (held_out) vs unique synthetic tokens");

    ReportData report =
        new ReportData(
            List.of(),
            List.of(),
            List.of(),
            fits,
            List.of(),
            List.of(),
            List.of(),
            List.of(),
            java.util.Map.of());
    assertThat(Chart.all(report)).extracting(Chart::id).containsExactly("scaling-1", "scaling-2");
  }

  private static ScalingFit generatorFit(
      String id, String generator, double intercept, String tokenizer) {
    return new ScalingFit(
        id,
        "quality",
        "trained",
        "accuracy",
        2,
        intercept,
        0.03,
        null,
        1.0,
        "rag",
        0.6,
        Math.exp((0.6 - intercept) / 0.03),
        List.of(
            new Point(id + "1", 100_000, intercept + 0.03 * Math.log(100_000)),
            new Point(id + "2", 1_000_000, intercept + 0.03 * Math.log(1_000_000))),
        "score-1",
        generator,
        "unique",
        tokenizer);
  }

  @Test
  void theScalingCurveShowsTheRunsTheFittedLineAndAFlatBaselineReachingTheCrossover() {
    XYDataset data = ReportCharts.scaling(FIT).getXYPlot().getDataset();
    assertThat(data.getSeriesCount()).isEqualTo(3);
    assertThat(data.getItemCount(0)).isEqualTo(3);
    for (int i = 0; i < 3; i++) {
      assertThat(data.getYValue(0, i)).isEqualTo(FIT.points().get(i).value());
    }
    // The fitted line is a + b ln(x) at every drawn x, and is drawn out to the crossover (within
    // two decades).
    for (int i = 0; i < data.getItemCount(1); i++) {
      assertThat(data.getYValue(1, i))
          .isCloseTo(0.1 + 0.03 * Math.log(data.getXValue(1, i)), within(1e-12));
    }
    double last = data.getXValue(1, data.getItemCount(1) - 1);
    assertThat(last).isCloseTo(FIT.crossoverTokens(), within(FIT.crossoverTokens() * 1e-9));
    assertThat(data.getYValue(1, data.getItemCount(1) - 1)).isCloseTo(0.6, within(1e-9));
    assertThat(data.getItemCount(2)).isEqualTo(2);
    assertThat(data.getYValue(2, 0)).isEqualTo(0.6);
    assertThat(data.getYValue(2, 1)).isEqualTo(0.6);
    assertThat(data.getSeriesKey(2).toString()).isEqualTo("rag baseline 0.6000");
  }

  @Test
  void chartsRenderToPngsThatDecodeAtTheReportSize() throws IOException {
    List<Score> scores =
        List.of(
            new Score(
                "a",
                "quality",
                "all",
                "closed_book",
                "m",
                "accuracy",
                0.3,
                64,
                0.2,
                0.4,
                null,
                "h",
                List.of(),
                "g",
                "s"),
            new Score(
                "b",
                "quality",
                "all",
                "rag",
                "m",
                "accuracy",
                0.5,
                64,
                0.38,
                0.62,
                null,
                "h",
                List.of(),
                "g",
                "s"),
            new Score(
                "c",
                "quality",
                "all",
                "trained",
                "m",
                "accuracy",
                0.45,
                64,
                0.33,
                0.57,
                1000L,
                "h",
                List.of(),
                "g",
                "s"),
            new Score(
                "d",
                "quality",
                "all",
                "trained_rag",
                "m",
                "accuracy",
                0.56,
                64,
                0.44,
                0.69,
                1000L,
                "h",
                List.of(),
                "g",
                "s"));
    List<Recall> recall =
        List.of(
            new Recall("r", "quality", "bm25", 1, 0.4, 4, 10),
            new Recall("r", "quality", "bm25", 5, 0.8, 8, 10),
            new Recall("r", "quality", "dense", 1, 0.3, 3, 10));
    for (JFreeChart chart :
        List.of(
            ReportCharts.scaling(FIT),
            ReportCharts.settings("quality", "all", "accuracy", scores),
            ReportCharts.recall("quality", recall))) {
      byte[] png = ReportCharts.png(chart);
      assertThat(png).startsWith(0x89, 'P', 'N', 'G');
      BufferedImage image = ImageIO.read(new ByteArrayInputStream(png));
      assertThat(image.getWidth()).isEqualTo(ReportCharts.WIDTH);
      assertThat(image.getHeight()).isEqualTo(ReportCharts.HEIGHT);
      // Something was drawn: a chart is not one flat colour.
      long distinct =
          java.util.stream.IntStream.range(0, image.getWidth() * image.getHeight())
              .map(i -> image.getRGB(i % image.getWidth(), i / image.getWidth()))
              .distinct()
              .count();
      assertThat(distinct).as(chart.getTitle().getText()).isGreaterThan(10);
    }
  }

  @Test
  void theSettingsChartPutsEachRunAtItsSettingWithItsConfidenceInterval() {
    List<Score> scores =
        List.of(
            new Score(
                "a",
                "quality",
                "all",
                "closed_book",
                "m",
                "accuracy",
                0.3,
                64,
                0.2,
                0.4,
                null,
                "h",
                List.of(),
                "g",
                "s"),
            new Score(
                "b",
                "quality",
                "all",
                "rag",
                "m",
                "accuracy",
                0.5,
                64,
                0.38,
                0.62,
                null,
                "h",
                List.of(),
                "g",
                "s"),
            new Score(
                "c",
                "quality",
                "all",
                "trained",
                "m",
                "accuracy",
                0.45,
                64,
                0.33,
                0.57,
                1_000_000L,
                "h",
                List.of(),
                "g",
                "s"));
    XYPlot plot = ReportCharts.settings("quality", "all", "accuracy", scores).getXYPlot();
    YIntervalSeriesCollection data = (YIntervalSeriesCollection) plot.getDataset();
    assertThat(data.getSeriesCount()).isEqualTo(3);
    assertThat(data.getSeriesKey(1)).isEqualTo("rag");
    assertThat(data.getXValue(1, 0)).isEqualTo(1.0);
    assertThat(data.getYValue(1, 0)).isEqualTo(0.5);
    assertThat(data.getStartYValue(1, 0)).isEqualTo(0.38);
    assertThat(data.getEndYValue(1, 0)).isEqualTo(0.62);
    assertThat(((SymbolAxis) plot.getDomainAxis()).getSymbols())
        .containsExactly("closed_book", "rag", "trained @1M");
  }

  @Test
  void aDiscussionChartShowsMajorityConsensusAndEachAgentOnAUnitAxisAndChartsAreCapped() {
    List<ReportData.DiscussionTurn> turns = new java.util.ArrayList<>();
    for (int d = 0; d < ReportData.MAX_DISCUSSION_CHARTS + 1; d++) {
      for (int turn = 0; turn < 3; turn++) {
        turns.add(
            new ReportData.DiscussionTurn(
                "score-x",
                String.format(java.util.Locale.ROOT, "disc-%02d", d),
                "discuss-x",
                "gsm8k",
                d == 0 ? null : d,
                turn,
                8,
                java.util.Map.of("majority_accuracy", 0.5 + 0.1 * turn, "consensus_rate", 0.25),
                new java.util.TreeMap<>(java.util.Map.of("b", 0.4, "a", 0.3 + 0.1 * turn))));
      }
    }
    JFreeChart chart = ReportCharts.discussion(turns.subList(0, 3));
    assertThat(chart.getTitle().getText()).isEqualTo("gsm8k: discussion disc-00 by turn");
    assertThat(ReportCharts.discussion(turns.subList(3, 6)).getTitle().getText())
        .isEqualTo("gsm8k: discussion disc-01 (iteration 1) by turn");
    XYPlot plot = chart.getXYPlot();
    assertThat(plot.getRangeAxis().getLowerBound()).isZero();
    assertThat(plot.getRangeAxis().getUpperBound()).isGreaterThanOrEqualTo(1.0);
    XYDataset data = plot.getDataset();
    assertThat(data.getSeriesCount()).isEqualTo(4);
    assertThat(data.getSeriesKey(0).toString()).isEqualTo("majority accuracy");
    assertThat(data.getSeriesKey(1).toString()).isEqualTo("consensus rate");
    assertThat(data.getSeriesKey(2).toString()).isEqualTo("a accuracy");
    assertThat(data.getItemCount(0)).isEqualTo(3);
    assertThat(data.getXValue(0, 2)).isEqualTo(2.0);
    assertThat(data.getYValue(0, 2)).isCloseTo(0.7, within(1e-12));

    ReportData report =
        new ReportData(
            List.of(),
            List.of(),
            List.of(),
            List.of(),
            List.of(),
            List.of(),
            List.of(),
            List.of(),
            java.util.Map.of(),
            turns);
    List<Chart> charts = Chart.all(report);
    assertThat(charts).hasSize(ReportData.MAX_DISCUSSION_CHARTS);
    assertThat(charts).extracting(Chart::section).containsOnly("discussions");
    assertThat(ReportData.discussionChartsNote(turns))
        .contains(
            ReportData.MAX_DISCUSSION_CHARTS + " of " + (ReportData.MAX_DISCUSSION_CHARTS + 1));
    assertThat(ReportData.discussionChartsNote(turns.subList(0, 6))).isNull();
  }
}
