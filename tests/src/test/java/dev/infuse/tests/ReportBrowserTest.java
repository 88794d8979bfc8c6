package dev.infuse.tests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.infuse.jobs.SparkTestSession;
import dev.infuse.jobs.SparkTestSession.CliResult;
import dev.infuse.jobs.report.ReportFixtures;
import dev.infuse.jobs.report.ReportFormat;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Opens the {@code report} job's HTML in real headless Chromium (Debian's {@code chromium}, which
 * {@code .ci/run} installs) and checks what a reader would see: every chart decoded by the browser
 * (the page's own script marks them), the tables' numbers in the rendered DOM, and painted chart
 * pixels in a screenshot. Without Chromium this test fails: a report nobody has seen render is not
 * tested.
 */
class ReportBrowserTest {
  private static final Path CHROMIUM =
      Path.of(System.getProperty("infuse.chromium", "/usr/bin/chromium"));
  private static Path report;

  @BeforeAll
  static void writeReport() {
    if (!Files.isExecutable(CHROMIUM)) {
      fail(
          "headless Chromium is needed to test the HTML report, and "
              + CHROMIUM
              + " is not there: install Debian's"
              + " package (apt-get install -y chromium; .ci/run does) or point -Dinfuse.chromium=PATH at a Chromium binary");
    }
    Path warehouse = SparkTestSession.tempDir("report-browser");
    ReportFixtures.write(SparkTestSession.get(), warehouse);
    Path out = SparkTestSession.tempDir("report-browser-out");
    CliResult result =
        SparkTestSession.cli(
            "report", "--warehouse", warehouse.toString(), "--output", out.toString());
    assertThat(result.code()).as(result.toString()).isZero();
    report = out.resolve("report.html");
    assertThat(report).isRegularFile();
  }

  @Test
  void everyChartDecodesAndTheTablesRenderTheirNumbers() throws Exception {
    String dom = chromium("--dump-dom", report.toUri().toString());
    Matcher body = Pattern.compile("<body[^>]*data-charts-decoded=\"(\\d+)/(\\d+)\"").matcher(dom);
    assertThat(body.find())
        .as("the page's load script ran and marked the body; DOM:\n" + head(dom))
        .isTrue();
    // Scaling curve, settings, recall, and the fixture's two MAPoRL discussions by turn.
    assertThat(body.group(2)).isEqualTo("5");
    assertThat(body.group(1)).as("charts decoded by the browser").isEqualTo(body.group(2));
    List<String> images = new ArrayList<>();
    Matcher img = Pattern.compile("<img class=\"chart\"[^>]*>").matcher(dom);
    while (img.find()) {
      images.add(img.group());
    }
    assertThat(images)
        .hasSize(5)
        .allSatisfy(
            tag ->
                assertThat(tag)
                    .contains("data-decoded=\"true\"")
                    .contains("data-natural-width=\"800\""));

    String scores = table(dom, "scores");
    for (Object[] s : ReportFixtures.SCORES) {
      assertThat(scores)
          .contains("<td class=\"num\">" + ReportFormat.number((Double) s[2]) + "</td>");
    }
    assertThat(scores).contains("tiny&lt;script&gt;alert(\"x\")&lt;/script&gt;&amp;'co'");
    assertThat(table(dom, "comparisons"))
        .contains(
            "<td class=\"num\">0.0625</td>",
            "[-0.0313, 0.1563]",
            "<td class=\"num\">&lt; 0.0001</td>");
    assertThat(table(dom, "scaling-fits"))
        .contains(
            "<td class=\"num\">0.0369</td>",
            "<td class=\"num\">0.0006</td>",
            "<td class=\"num\">0.9997</td>",
            ReportFormat.compact(ReportFixtures.CROSSOVER));
    assertThat(table(dom, "recall-table"))
        .contains("<td>dense</td><td class=\"num\">10</td><td class=\"num\">1.0000</td>");
    assertThat(table(dom, "runs-table")).contains(ReportFixtures.SCORE_RUN, "abc1234");
    // The nasty strings stayed text: the only script element is the report's own.
    assertThat(dom.split("<script", -1)).hasSize(2);
  }

  @Test
  void aScreenshotShowsThePaintedCharts() throws Exception {
    Path png = SparkTestSession.tempDir("report-shot").resolve("report.png");
    chromium(
        "--window-size=1200,3000",
        "--hide-scrollbars",
        "--screenshot=" + png,
        report.toUri().toString());
    BufferedImage shot = ImageIO.read(png.toFile());
    assertThat(shot).as("screenshot " + png).isNotNull();
    // The chart palette's orange and red (fitted line, baseline, settings) are in no text or CSS of
    // the page.
    assertThat(pixelsNear(shot, 0xff7f0e)).as("orange fitted-line pixels").isGreaterThan(50);
    assertThat(pixelsNear(shot, 0xd62728)).as("red baseline pixels").isGreaterThan(50);
  }

  private static String chromium(String... args) throws IOException, InterruptedException {
    Path profile = SparkTestSession.tempDir("chromium-profile");
    List<String> command =
        new ArrayList<>(
            List.of(
                CHROMIUM.toString(),
                "--headless",
                "--disable-gpu",
                "--no-sandbox",
                "--no-first-run",
                "--no-default-browser-check",
                "--disable-dev-shm-usage",
                "--disable-extensions",
                "--user-data-dir=" + profile,
                "--virtual-time-budget=10000"));
    command.addAll(List.of(args));
    Path stdout = profile.resolve("stdout.txt");
    Path stderr = profile.resolve("stderr.txt");
    Process process =
        new ProcessBuilder(command)
            .redirectOutput(stdout.toFile())
            .redirectError(stderr.toFile())
            .start();
    if (!process.waitFor(120, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      fail("chromium did not finish in 120 s: " + command + "\n" + Files.readString(stderr));
    }
    String out = Files.readString(stdout, StandardCharsets.UTF_8);
    assertThat(process.exitValue())
        .as("chromium exit; stderr:\n" + Files.readString(stderr))
        .isZero();
    return out;
  }

  private static String table(String dom, String id) {
    Matcher m =
        Pattern.compile("<table id=\"" + id + "\">(.*?)</table>", Pattern.DOTALL).matcher(dom);
    assertThat(m.find()).as("table " + id + " in the rendered DOM").isTrue();
    return m.group(1);
  }

  private static long pixelsNear(BufferedImage image, int rgb) {
    long count = 0;
    for (int y = 0; y < image.getHeight(); y++) {
      for (int x = 0; x < image.getWidth(); x++) {
        int p = image.getRGB(x, y);
        if (Math.abs(((p >> 16) & 0xff) - ((rgb >> 16) & 0xff)) <= 12
            && Math.abs(((p >> 8) & 0xff) - ((rgb >> 8) & 0xff)) <= 12
            && Math.abs((p & 0xff) - (rgb & 0xff)) <= 12) {
          count++;
        }
      }
    }
    return count;
  }

  private static String head(String dom) {
    return dom.length() > 2000 ? dom.substring(0, 2000) + "…" : dom;
  }
}
