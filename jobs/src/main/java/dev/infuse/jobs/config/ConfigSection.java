package dev.infuse.jobs.config;

import java.util.List;

/**
 * A record bound from one section of the config, which checks its own values. Each job keeps its
 * section's record in its own package; {@link InfuseConfig} only composes them.
 */
public interface ConfigSection {
  /**
   * Every problem with these values, as "key: got X, expected Y" with the key relative to the
   * section ({@code max_tokens}, not {@code chunk.max_tokens}); empty when the section is usable.
   */
  List<String> problems();
}
