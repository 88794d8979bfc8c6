package dev.infuse.jobs.run;

import java.util.Map;
import java.util.TreeMap;

/**
 * What a run read, wrote and quarantined. For a succeeded run, input = output + quarantined:
 * nothing is dropped silently.
 *
 * @param details finer counts, by table and reason ({@code documents.inserted}, {@code
 *     questions.collapsed}, …)
 */
public record RunCounts(long input, long output, long quarantined, Map<String, Long> details) {
  public RunCounts {
    details = new TreeMap<>(details);
  }

  public static RunCounts none() {
    return new RunCounts(0, 0, 0, Map.of());
  }

  public boolean reconciles() {
    return input == output + quarantined;
  }

  /** The quarantined share of what was read; 0 for an empty run. */
  public double badFraction() {
    return input == 0 ? 0 : (double) quarantined / input;
  }
}
