package dev.infuse.jobs.ingest;

import dev.infuse.jobs.config.ConfigSection;
import java.util.List;

/**
 * The {@code ingest} section.
 *
 * @param format the reader: quality, financebench, gsm8k, anli, medqa, longhealth, medec,
 *     aci-bench, agentclinic
 * @param input a file or directory, local or any Hadoop URI
 * @param maxBadFraction the job fails (after quarantining) when more than this fraction of items is
 *     bad
 */
public record IngestConfig(String format, String input, double maxBadFraction)
    implements ConfigSection {
  @Override
  public List<String> problems() {
    return maxBadFraction >= 0 && maxBadFraction <= 1
        ? List.of()
        : List.of("max_bad_fraction: got " + maxBadFraction + ", expected a fraction in 0..1");
  }
}
