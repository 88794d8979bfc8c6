package dev.infuse.jobs.demo;

import dev.infuse.jobs.config.ConfigSection;
import java.util.List;

/**
 * The {@code demo} section.
 *
 * @param input the demo's QuALITY file, relative to the Infuse home directory
 * @param discussionInput the GSM8K problems of the demo's MAPoRL discussion, relative to the Infuse
 *     home directory
 */
public record DemoConfig(String input, String discussionInput) implements ConfigSection {
  @Override
  public List<String> problems() {
    return List.of();
  }
}
