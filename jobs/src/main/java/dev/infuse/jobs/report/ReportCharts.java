package dev.infuse.jobs.report;

import dev.infuse.jobs.report.ReportData.Point;
import dev.infuse.jobs.report.ReportData.Recall;
import dev.infuse.jobs.report.ReportData.ScalingFit;
import dev.infuse.jobs.report.ReportData.Score;
import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Paint;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.text.FieldPosition;
import java.text.NumberFormat;
import java.text.ParsePosition;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.axis.NumberTickUnit;
import org.jfree.chart.axis.SymbolAxis;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYErrorRenderer;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;
import org.jfree.data.xy.YIntervalSeries;
import org.jfree.data.xy.YIntervalSeriesCollection;

/**
 * The report's charts, built with JFreeChart and rendered to PNG without a display ({@code
 * java.awt.headless}). Each chart is built from the same values the report's tables and report.json
 * show.
 */
public final class ReportCharts {
  public static final int WIDTH = 800;
  public static final int HEIGHT = 450;

  private static final Paint[] PALETTE = {
    new Color(0x1f77b4),
    new Color(0xff7f0e),
    new Color(0x2ca02c),
    new Color(0xd62728),
    new Color(0x9467bd),
    new Color(0x8c564b),
    new Color(0xe377c2),
    new Color(0x7f7f7f)
  };

  static {
    // A cluster driver has no display; JFreeChart only needs Java2D, which works headless.
    if (System.getProperty("java.awt.headless") == null) {
      System.setProperty("java.awt.headless", "true");
    }
  }

  private ReportCharts() {}

  /**
   * The scaling curve of one fit: its runs as points, the fitted line metric = a + b ln(tokens),
   * straight on the log x-axis, and the baseline (RAG) as a horizontal dashed line. The line is
   * drawn out to the crossover when that lies within two decades of the runs, so the reader sees
   * where they would meet.
   */
  public static JFreeChart scaling(ScalingFit fit) {
    List<Point> points = fit.points().stream().filter(p -> p.tokens() > 0).toList();
    double lo = points.stream().mapToDouble(Point::tokens).min().orElse(1);
    double hi = points.stream().mapToDouble(Point::tokens).max().orElse(10);
    if (fit.crossoverTokens() != null && fit.crossoverTokens() > 0) {
      double x = fit.crossoverTokens();
      if (x > hi && x <= hi * 100) {
        hi = x;
      } else if (x < lo && x >= lo / 100) {
        lo = x;
      }
    }
    if (hi <= lo) {
      lo = lo / 2;
      hi = hi * 2;
    }
    XYSeries runs = new XYSeries("runs", false, true);
    points.forEach(p -> runs.add(p.tokens(), p.value()));
    XYSeries line =
        new XYSeries(
            String.format(
                Locale.ROOT,
                "fit: %s + %s ln(tokens)",
                ReportFormat.number(fit.intercept()),
                ReportFormat.number(fit.slope())),
            false,
            true);
    int steps = 40;
    for (int i = 0; i <= steps; i++) {
      double x = Math.exp(Math.log(lo) + (Math.log(hi) - Math.log(lo)) * i / steps);
      line.add(x, fit.predict(x));
    }
    XYSeriesCollection data = new XYSeriesCollection();
    data.addSeries(runs);
    data.addSeries(line);
    XYLineAndShapeRenderer renderer = new XYLineAndShapeRenderer();
    renderer.setSeriesLinesVisible(0, false);
    renderer.setSeriesShapesVisible(0, true);
    renderer.setSeriesPaint(0, PALETTE[0]);
    renderer.setSeriesLinesVisible(1, true);
    renderer.setSeriesShapesVisible(1, false);
    renderer.setSeriesPaint(1, PALETTE[1]);
    renderer.setSeriesStroke(1, new BasicStroke(2f));
    if (fit.baselineValue() != null) {
      XYSeries baseline =
          new XYSeries(
              String.format(
                      Locale.ROOT,
                      "%s baseline %s",
                      fit.baselineSetting() == null ? "" : fit.baselineSetting(),
                      ReportFormat.number(fit.baselineValue()))
                  .trim(),
              false,
              true);
      baseline.add(lo, fit.baselineValue());
      baseline.add(hi, fit.baselineValue());
      data.addSeries(baseline);
      renderer.setSeriesLinesVisible(2, true);
      renderer.setSeriesShapesVisible(2, false);
      renderer.setSeriesPaint(2, PALETTE[3]);
      renderer.setSeriesStroke(
          2,
          new BasicStroke(
              2f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f, new float[] {8f, 6f}, 0f));
    }
    LogAxis x = tokenAxis(lo, hi);
    NumberAxis y = new NumberAxis(fit.metric());
    y.setAutoRangeIncludesZero(false);
    XYPlot plot = new XYPlot(data, x, y, renderer);
    return styled(
        new JFreeChart(
            fit.benchmark() + ": " + fit.setting() + " " + fit.metric() + " vs synthetic tokens",
            JFreeChart.DEFAULT_TITLE_FONT,
            plot,
            true));
  }

  /**
   * One benchmark's settings side by side for one metric and subset: each scored run is a point
   * with its 95% CI as an error bar, coloured by setting, in the order closed_book, rag, trained,
   * trained_rag.
   */
  public static JFreeChart settings(
      String benchmark, String subset, String metric, List<Score> scores) {
    Map<String, YIntervalSeries> bySetting = new LinkedHashMap<>();
    List<String> labels = new ArrayList<>();
    for (Score s : scores) {
      YIntervalSeries series =
          bySetting.computeIfAbsent(s.setting(), name -> new YIntervalSeries(name, false, true));
      double low = s.ciLow() == null ? s.value() : s.ciLow();
      double high = s.ciHigh() == null ? s.value() : s.ciHigh();
      series.add(labels.size(), s.value(), low, high);
      labels.add(
          s.syntheticTokens() == null
              ? s.setting()
              : s.setting() + " @" + ReportFormat.tokens(s.syntheticTokens()));
    }
    YIntervalSeriesCollection data = new YIntervalSeriesCollection();
    bySetting.values().forEach(data::addSeries);
    XYErrorRenderer renderer = new XYErrorRenderer();
    renderer.setDrawXError(false);
    renderer.setDrawYError(true);
    renderer.setErrorStroke(new BasicStroke(2f));
    renderer.setCapLength(10);
    renderer.setDefaultLinesVisible(false);
    renderer.setDefaultShapesVisible(true);
    for (int i = 0; i < data.getSeriesCount(); i++) {
      renderer.setSeriesPaint(
          i,
          PALETTE[Math.min(Settings.order(data.getSeriesKey(i).toString()), 3) % PALETTE.length]);
      renderer.setSeriesLinesVisible(i, false);
    }
    SymbolAxis x = new SymbolAxis("setting", labels.toArray(String[]::new));
    x.setVerticalTickLabels(labels.size() > 6);
    x.setGridBandsVisible(false);
    NumberAxis y = new NumberAxis(metric + " (95% CI)");
    y.setAutoRangeIncludesZero(false);
    XYPlot plot = new XYPlot(data, x, y, renderer);
    String title =
        benchmark
            + ": "
            + metric
            + (ReportData.ALL.equals(subset) ? "" : " (" + subset + ")")
            + " by setting";
    return styled(new JFreeChart(title, JFreeChart.DEFAULT_TITLE_FONT, plot, true));
  }

  /** Recall@k of each retriever on one benchmark, k on the x-axis. */
  public static JFreeChart recall(String benchmark, List<Recall> rows) {
    Map<String, XYSeries> byRetriever = new LinkedHashMap<>();
    for (Recall r : rows) {
      byRetriever
          .computeIfAbsent(r.retriever(), name -> new XYSeries(name, true, true))
          .add(r.k(), r.recall());
    }
    XYSeriesCollection data = new XYSeriesCollection();
    byRetriever.values().forEach(data::addSeries);
    XYLineAndShapeRenderer renderer = new XYLineAndShapeRenderer(true, true);
    for (int i = 0; i < data.getSeriesCount(); i++) {
      renderer.setSeriesPaint(i, PALETTE[i % PALETTE.length]);
      renderer.setSeriesStroke(i, new BasicStroke(2f));
    }
    NumberAxis x = new NumberAxis("k");
    x.setStandardTickUnits(NumberAxis.createIntegerTickUnits());
    NumberAxis y = new NumberAxis("recall@k");
    y.setRange(0, 1.05);
    XYPlot plot = new XYPlot(data, x, y, renderer);
    return styled(
        new JFreeChart(
            benchmark + ": recall@k by retriever", JFreeChart.DEFAULT_TITLE_FONT, plot, true));
  }

  /**
   * A base-10 log axis for token counts with ticks at whole decades (half decades when the data
   * spans less than two), labelled 100k, 1M, 10M rather than 10^5.3: tick units of a log axis are
   * in exponents.
   */
  static LogAxis tokenAxis(double lo, double hi) {
    LogAxis x = new LogAxis("synthetic tokens (log scale)");
    x.setBase(10);
    x.setSmallestValue(1);
    double decades = Math.log10(hi / lo);
    x.setTickUnit(new NumberTickUnit(decades >= 2 ? 1 : decades >= 1 ? 0.5 : 0.25));
    x.setNumberFormatOverride(new CompactFormat());
    return x;
  }

  /** Formats axis values as {@link ReportFormat#compact}. */
  static final class CompactFormat extends NumberFormat {
    private static final long serialVersionUID = 1L;

    @Override
    public StringBuffer format(double number, StringBuffer to, FieldPosition pos) {
      return to.append(ReportFormat.compact(number));
    }

    @Override
    public StringBuffer format(long number, StringBuffer to, FieldPosition pos) {
      return to.append(ReportFormat.compact((double) number));
    }

    @Override
    public Number parse(String source, ParsePosition pos) {
      return null;
    }
  }

  /** The chart as PNG bytes. */
  public static byte[] png(JFreeChart chart) {
    try {
      return ChartUtils.encodeAsPNG(chart.createBufferedImage(WIDTH, HEIGHT));
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot encode chart '" + chart.getTitle().getText() + "' as PNG", e);
    }
  }

  private static JFreeChart styled(JFreeChart chart) {
    chart.setBackgroundPaint(Color.WHITE);
    XYPlot plot = chart.getXYPlot();
    plot.setBackgroundPaint(Color.WHITE);
    plot.setDomainGridlinePaint(new Color(0xdddddd));
    plot.setRangeGridlinePaint(new Color(0xdddddd));
    return chart;
  }
}
