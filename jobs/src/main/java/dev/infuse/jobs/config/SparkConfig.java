package dev.infuse.jobs.config;

import java.util.List;
import java.util.Map;

/**
 * The {@code spark} section.
 *
 * @param master the Spark master for local runs; ignored when spark-submit or the platform sets one
 * @param conf extra Spark settings, applied when Infuse creates the session
 */
public record SparkConfig(String master, Map<String, String> conf) implements ConfigSection {
  @Override
  public List<String> problems() {
    return master == null || master.isBlank()
        ? List.of("master: got nothing, expected a Spark master such as local[*]")
        : List.of();
  }
}
