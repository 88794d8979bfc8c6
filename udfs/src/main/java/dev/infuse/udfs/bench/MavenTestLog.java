package dev.infuse.udfs.bench;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The test classes a Maven run started but did not finish clean, read from its console log:
 * surefire prints {@code Running CLASS} when a class starts and {@code Tests run: N, Failures: F,
 * Errors: E, ... in CLASS} when it ends. A class that failed or errored, or never reported an end
 * (its forked JVM died), crashed. The log, not the XML reports, because a dead fork writes no
 * report and old reports of earlier builds lie next to new ones.
 */
public final class MavenTestLog {
  private static final Pattern RUNNING = Pattern.compile("\\[INFO] Running (\\S+)\\s*$");
  private static final Pattern FINISHED =
      Pattern.compile(
          "Tests run: (\\d+), Failures: (\\d+), Errors: (\\d+), Skipped: (\\d+).* in (\\S+)\\s*$");

  private MavenTestLog() {}

  /** The classes that crashed, in the order they started. */
  public static List<String> crashed(List<String> lines) {
    Set<String> started = new LinkedHashSet<>();
    Set<String> clean = new LinkedHashSet<>();
    for (String line : lines) {
      Matcher running = RUNNING.matcher(line);
      if (running.find()) {
        started.add(running.group(1));
        continue;
      }
      Matcher finished = FINISHED.matcher(line);
      if (finished.find()
          && Integer.parseInt(finished.group(2)) == 0
          && Integer.parseInt(finished.group(3)) == 0) {
        clean.add(finished.group(5));
      }
    }
    List<String> crashed = new ArrayList<>();
    for (String name : started) {
      if (!clean.contains(name)) {
        crashed.add(name);
      }
    }
    return crashed;
  }
}
