package dev.infuse.tests;

import dev.infuse.jobs.SparkTestSession;
import dev.infuse.jobs.SparkTestSession.CliResult;

/** One demo warehouse per test JVM, for tests that only read it (notebooks, the launcher). */
final class DemoWarehouse {
  private static String path;
  private static CliResult firstRun;

  private DemoWarehouse() {}

  static synchronized String get() {
    if (path == null) {
      String warehouse = SparkTestSession.tempDir("demo-shared").toString();
      CliResult result = SparkTestSession.cli("demo", "--warehouse", warehouse);
      if (result.code() != 0) {
        throw new IllegalStateException("demo failed: " + result);
      }
      path = warehouse;
      firstRun = result;
    }
    return path;
  }

  /** What the demo printed when it built the warehouse. */
  static synchronized CliResult firstRun() {
    get();
    return firstRun;
  }
}
