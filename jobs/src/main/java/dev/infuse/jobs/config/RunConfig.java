package dev.infuse.jobs.config;

import java.util.ArrayList;
import java.util.List;

/**
 * The {@code run} section: settings every job shares.
 *
 * @param seed the run seed; all sampling derives from (seed, row key)
 * @param progressIntervalSeconds how often the driver prints progress; 0 turns it off
 * @param promptsDir where the prompt templates are: a directory or URI, relative to the Infuse home
 * @param filesDir where files that are not tables go (LLM call journals, indexes, shard builds,
 *     reports), or null for the warehouse directory or schema location
 */
public record RunConfig(long seed, int progressIntervalSeconds, String promptsDir, String filesDir)
    implements ConfigSection {
  @Override
  public List<String> problems() {
    List<String> problems = new ArrayList<>();
    if (progressIntervalSeconds < 0) {
      problems.add("progress_interval_seconds: got " + progressIntervalSeconds + ", expected >= 0");
    }
    return problems;
  }
}
