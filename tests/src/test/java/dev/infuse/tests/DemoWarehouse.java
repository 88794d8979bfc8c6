package dev.infuse.tests;

import dev.infuse.jobs.SparkTestSession;
import dev.infuse.jobs.SparkTestSession.CliResult;
import java.util.List;

/**
 * One demo warehouse per test JVM, for tests that only read it (notebooks, the launcher). To work
 * on a notebook without rerunning the demo, pass {@code -Dinfuse.test.demo_warehouse=DIR} naming a
 * warehouse {@code bin/infuse demo} wrote; the demo's own checks then see no run and fail.
 */
final class DemoWarehouse {
  private static String path;
  private static CliResult firstRun;
  private static List<String> warnings;

  private DemoWarehouse() {}

  static synchronized String get() {
    String given = System.getProperty("infuse.test.demo_warehouse");
    if (path == null && given != null) {
      path = given;
      firstRun = new CliResult(0, "", "");
      warnings = List.of();
    }
    if (path == null) {
      String warehouse = SparkTestSession.tempDir("demo-shared").toString();
      CliResult result;
      try (WarningCapture capture = WarningCapture.begin()) {
        result = SparkTestSession.cli("demo", "--warehouse", warehouse);
        warnings = capture.lines();
      }
      if (result.code() != 0) {
        throw new IllegalStateException("demo failed: " + result);
      }
      path = warehouse;
      firstRun = result;
    }
    return path;
  }

  /** The WARN and ERROR lines the demo's run logged, as a user's console would print them. */
  static synchronized List<String> warnings() {
    get();
    return warnings;
  }

  /** What the demo printed when it built the warehouse. */
  static synchronized CliResult firstRun() {
    get();
    return firstRun;
  }
}
