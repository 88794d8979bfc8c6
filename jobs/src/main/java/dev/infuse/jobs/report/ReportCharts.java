package dev.infuse.jobs.report;

import dev.infuse.jobs.report.ReportData.Point;
import dev.infuse.jobs.report.ReportData.Recall;
import dev.infuse.jobs.report.ReportData.ScalingFit;
import dev.infuse.jobs.report.ReportData.Score;
import dev.infuse.jobs.score.FitScalingJob;
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

  /** One colour per generator's curve: its points and its line. */
  private static final Paint[] CURVES = {
    new Color(0x1f77b4),
    new Color(0x2ca02c),
    new Color(0x9467bd),
    new Color(0xff7f0e),
    new Color(0x8c564b),
    new Color(0xe377c2)
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
    return scaling(List.of(fit));
  }

  /**
   * Several fits of one benchmark, setting, metric and x-axis on one chart, one curve per generator
   * (a sweep over two generators shows two): per fit its runs and its line, in a colour pair of its
   * own, then each distinct baseline as a dashed line. The x-axis says which tokens it counts.
   */
  public static JFreeChart scaling(List<ScalingFit> fits) {
    ScalingFit first = fits.get(0);
    double lo = Double.MAX_VALUE;
    double hi = 0;
    for (ScalingFit fit : fits) {
      for (Point p : fit.points()) {
        if (p.tokens() > 0) {
          lo = Math.min(lo, p.tokens());
          hi = Math.max(hi, p.tokens());
        }
      }
    }
    if (hi == 0) {
      lo = 1;
      hi = 10;
    }
    double runsLo = lo;
    double runsHi = hi;
    for (ScalingFit fit : fits) {
      if (fit.crossoverTokens() != null && fit.crossoverTokens() > 0) {
        double x = fit.crossoverTokens();
        if (x > hi && x <= runsHi * 100) {
          hi = x;
        } else if (x < lo && x >= runsLo / 100) {
          lo = x;
        }
      }
    }
    if (hi <= lo) {
      lo = lo / 2;
      hi = hi * 2;
    }
    XYSeriesCollection data = new XYSeriesCollection();
    XYLineAndShapeRenderer renderer = new XYLineAndShapeRenderer();
    for (int f = 0; f < fits.size(); f++) {
      ScalingFit fit = fits.get(f);
      // One fit keeps the plain names; several are told apart by label, else by generator.
      String who = fits.size() == 1 ? "" : " " + fit.name();
      XYSeries runs = new XYSeries(unique(data, "runs" + who), false, true);
      fit.points().stream()
          .filter(p -> p.tokens() > 0)
          .forEach(p -> runs.add(p.tokens(), p.value()));
      XYSeries line =
          new XYSeries(
              unique(
                  data,
                  String.format(
                      Locale.ROOT,
                      "fit%s: %s + %s ln(tokens)",
                      who,
                      ReportFormat.number(fit.intercept()),
                      ReportFormat.number(fit.slope()))),
              false,
              true);
      int steps = 40;
      for (int i = 0; i <= steps; i++) {
        double x = Math.exp(Math.log(lo) + (Math.log(hi) - Math.log(lo)) * i / steps);
        line.add(x, fit.predict(x));
      }
      int runsIndex = data.getSeriesCount();
      data.addSeries(runs);
      data.addSeries(line);
      // Fit f: points and line in one colour (the single fit keeps its blue points, orange line).
      Paint points = fits.size() == 1 ? PALETTE[0] : CURVES[f % CURVES.length];
      Paint curve = fits.size() == 1 ? PALETTE[1] : CURVES[f % CURVES.length];
      renderer.setSeriesLinesVisible(runsIndex, false);
      renderer.setSeriesShapesVisible(runsIndex, true);
      renderer.setSeriesPaint(runsIndex, points);
      renderer.setSeriesLinesVisible(runsIndex + 1, true);
      renderer.setSeriesShapesVisible(runsIndex + 1, false);
      renderer.setSeriesPaint(runsIndex + 1, curve);
      renderer.setSeriesStroke(runsIndex + 1, new BasicStroke(2f));
    }
    List<String> baselines = new ArrayList<>();
    for (ScalingFit fit : fits) {
      if (fit.baselineValue() == null) {
        continue;
      }
      String name =
          String.format(
                  Locale.ROOT,
                  "%s baseline %s",
                  fit.baselineSetting() == null ? "" : fit.baselineSetting(),
                  ReportFormat.number(fit.baselineValue()))
              .trim();
      if (baselines.contains(name)) {
        continue;
      }
      baselines.add(name);
      XYSeries baseline = new XYSeries(name, false, true);
      baseline.add(lo, fit.baselineValue());
      baseline.add(hi, fit.baselineValue());
      int index = data.getSeriesCount();
      data.addSeries(baseline);
      renderer.setSeriesLinesVisible(index, true);
      renderer.setSeriesShapesVisible(index, false);
      renderer.setSeriesPaint(index, PALETTE[3]);
      renderer.setSeriesStroke(
          index,
          new BasicStroke(
              2f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f, new float[] {8f, 6f}, 0f));
    }
    LogAxis x = tokenAxis(lo, hi);
    x.setLabel(first.axis() + " (log scale)");
    NumberAxis y = new NumberAxis(first.metric());
    y.setAutoRangeIncludesZero(false);
    XYPlot plot = new XYPlot(data, x, y, renderer);
    return styled(
        new JFreeChart(
            first.benchmark()
                + ": "
                + first.setting()
                + " "
                + first.metric()
                + ("all".equals(first.subset()) ? "" : " (" + first.subset() + ")")
                + " vs "
                + (FitScalingJob.WRITTEN.equals(first.tokenCount())
                    ? "synthetic tokens"
                    : first.tokenCount() + " synthetic tokens"),
            JFreeChart.DEFAULT_TITLE_FONT,
            plot,
            true));
  }

  /** {@code name}, or with a number appended when the chart already has a series of that name. */
  private static String unique(XYSeriesCollection data, String name) {
    String candidate = name;
    for (int n = 2; data.getSeriesIndex(candidate) >= 0; n++) {
      candidate = name + " #" + n;
    }
    return candidate;
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
   * One discussion turn by turn: the group's majority-vote accuracy and consensus rate, and each
   * agent's accuracy, on [0, 1].
   */
  public static JFreeChart discussion(List<ReportData.DiscussionTurn> turns) {
    XYSeriesCollection data = new XYSeriesCollection();
    XYSeries majority = new XYSeries("majority accuracy", true, true);
    XYSeries consensus = new XYSeries("consensus rate", true, true);
    Map<String, XYSeries> agents = new java.util.TreeMap<>();
    for (ReportData.DiscussionTurn t : turns) {
      Double m = t.metric("majority_accuracy");
      if (m != null && Double.isFinite(m)) {
        majority.add(t.turn(), m);
      }
      Double c = t.metric("consensus_rate");
      if (c != null && Double.isFinite(c)) {
        consensus.add(t.turn(), c);
      }
      t.agentAccuracy()
          .forEach(
              (agent, value) -> {
                if (value != null && Double.isFinite(value)) {
                  agents
                      .computeIfAbsent(agent, a -> new XYSeries(a + " accuracy", true, true))
                      .add(t.turn(), value);
                }
              });
    }
    data.addSeries(majority);
    data.addSeries(consensus);
    agents.values().forEach(data::addSeries);
    XYLineAndShapeRenderer renderer = new XYLineAndShapeRenderer(true, true);
    renderer.setSeriesPaint(0, Color.BLACK);
    renderer.setSeriesStroke(0, new BasicStroke(3f));
    renderer.setSeriesPaint(1, PALETTE[3]);
    renderer.setSeriesStroke(
        1,
        new BasicStroke(
            2f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f, new float[] {8f, 6f}, 0f));
    for (int i = 2; i < data.getSeriesCount(); i++) {
      // Agents in the palette, skipping red (the consensus line).
      renderer.setSeriesPaint(i, CURVES[(i - 2) % CURVES.length]);
      renderer.setSeriesStroke(i, new BasicStroke(1.5f));
    }
    NumberAxis x = new NumberAxis("turn");
    x.setStandardTickUnits(NumberAxis.createIntegerTickUnits());
    x.setAutoRangeIncludesZero(false);
    NumberAxis y = new NumberAxis("rate");
    y.setRange(0, 1.05);
    XYPlot plot = new XYPlot(data, x, y, renderer);
    ReportData.DiscussionTurn first = turns.get(0);
    return styled(
        new JFreeChart(first.label() + " by turn", JFreeChart.DEFAULT_TITLE_FONT, plot, true));
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
