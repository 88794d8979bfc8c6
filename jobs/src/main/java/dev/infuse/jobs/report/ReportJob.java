package dev.infuse.jobs.report;

import dev.infuse.jobs.run.JobRun;
import dev.infuse.jobs.run.RunCounts;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * {@code report}: reads {@code scores}, {@code score_comparisons}, {@code scaling_fits}, {@code
 * retrieval_recall}, {@code discussion_scores} and {@code runs}, and writes {@code report.html}
 * (self-contained: inline CSS, charts as PNG data URIs, no network) and {@code report.json} (every
 * number in the report) to one directory.
 *
 * <p>The directory is {@code report.output}, relative to the warehouse when relative; by default
 * {@code reports/<score run id>} under the warehouse, so reporting the same score run again
 * replaces its report. A missing or empty table is said in the report, never a failure. The files
 * are written through Hadoop's FileSystem, so the directory may be on any store the warehouse may
 * be on.
 */
public final class ReportJob {
  public static final String NAME = "report";
  public static final String HTML = "report.html";
  public static final String JSON = "report.json";

  private final JobRun run;

  public ReportJob(JobRun run) {
    this.run = run;
  }

  public RunCounts run() {
    ReportConfig config = run.config().section(ReportConfig.class);
    ReportData data = ReportData.load(run.warehouse(), config);
    List<Chart> charts = Chart.all(data);
    Instant now = Instant.now();
    String html = ReportHtml.render(config.title(), run.runId(), now, data, charts);
    String json = ReportJson.render(config.title(), run.runId(), now, data, charts);
    Path dir = outputDir(run.warehouse().root(), config.output(), data.scoreRuns(), run.runId());
    write(new Path(dir, HTML), html);
    write(new Path(dir, JSON), json);

    Map<String, Long> details = new LinkedHashMap<>();
    details.put("scores", (long) data.scores().size());
    details.put("score_comparisons", (long) data.comparisons().size());
    details.put("scaling_fits", (long) data.fits().size());
    details.put("retrieval_recall", (long) data.recall().size());
    details.put("discussion_turns", (long) data.discussions().size());
    details.put("behavior_runs", (long) data.behavior().size());
    details.put("runs", (long) data.runs().size());
    details.put("charts", (long) charts.size());
    var out = run.out();
    out.printf(
        Locale.ROOT,
        "report: %d score(s), %d comparison(s), %d scaling fit(s), %d recall row(s), %d run(s),"
            + " %d discussion turn(s), %d behaviour run(s); %d chart(s)%n",
        data.scores().size(),
        data.comparisons().size(),
        data.fits().size(),
        data.recall().size(),
        data.runs().size(),
        data.discussions().size(),
        data.behavior().size(),
        charts.size());
    data.notes().values().forEach(note -> out.println("  note: " + note));
    out.println("  report: " + display(new Path(dir, HTML)));
    out.println("  numbers: " + display(new Path(dir, JSON)));
    out.flush();
    // Every row read is shown; a report rejects nothing.
    return new RunCounts(data.rowsRead(), data.rowsRead(), 0, details);
  }

  /**
   * Where the report goes: {@code output} (relative to the warehouse root when relative), or {@code
   * reports/<the one score run>} under the warehouse, or {@code reports/<report run id>} when the
   * report covers no score run or several.
   */
  public static Path outputDir(
      String warehouseRoot, String output, List<String> scoreRuns, String reportRunId) {
    if (output == null) {
      return new Path(
          warehouseRoot, "reports/" + (scoreRuns.size() == 1 ? scoreRuns.get(0) : reportRunId));
    }
    Path path = new Path(output);
    return path.isAbsolute() || path.toUri().getScheme() != null
        ? path
        : new Path(warehouseRoot, output);
  }

  private void write(Path file, String text) {
    try {
      if ("file".equals(file.toUri().getScheme())) {
        // Plain java.nio locally: Hadoop's local file system would leave .crc files beside the
        // report.
        java.nio.file.Path local = java.nio.file.Path.of(file.toUri());
        java.nio.file.Files.createDirectories(local.getParent());
        java.nio.file.Files.writeString(local, text, StandardCharsets.UTF_8);
        return;
      }
      FileSystem fs = file.getFileSystem(run.spark().sparkContext().hadoopConfiguration());
      try (OutputStream stream = fs.create(file, true)) {
        stream.write(text.getBytes(StandardCharsets.UTF_8));
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + file, e);
    }
  }

  /** A local path as a plain path a user can open; anything else as its URI. */
  private static String display(Path file) {
    return "file".equals(file.toUri().getScheme()) ? file.toUri().getPath() : file.toString();
  }
}
