package dev.infuse.jobs.config;

import java.util.List;

/** A configuration that cannot be used. Carries every problem found, not just the first. */
public final class ConfigException extends RuntimeException {
  private static final long serialVersionUID = 1L;
  private final List<String> problems;

  public ConfigException(List<String> problems) {
    super(
        problems.size() == 1
            ? problems.get(0)
            : "config errors:\n  " + String.join("\n  ", problems));
    this.problems = List.copyOf(problems);
  }

  public List<String> problems() {
    return problems;
  }
}
