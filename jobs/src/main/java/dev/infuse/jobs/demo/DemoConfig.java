package dev.infuse.jobs.demo;

import dev.infuse.jobs.config.ConfigSection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@code demo} section.
 *
 * @param input the demo's QuALITY file, relative to the Infuse home directory
 * @param discussionInput the GSM8K problems of the demo's MAPoRL discussion, relative to the Infuse
 *     home directory
 * @param behaviorInputs the clinical samples of the demo's behaviour run, by ingest format,
 *     relative to the Infuse home directory
 */
public record DemoConfig(String input, String discussionInput, Map<String, String> behaviorInputs)
    implements ConfigSection {
  public DemoConfig {
    behaviorInputs = behaviorInputs == null ? Map.of() : new LinkedHashMap<>(behaviorInputs);
  }

  @Override
  public List<String> problems() {
    return List.of();
  }
}
