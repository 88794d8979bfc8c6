package dev.infuse.jobs.cli;

import dev.infuse.jobs.JobRun;
import dev.infuse.jobs.RunCounts;
import dev.infuse.jobs.config.ConfigLoader;
import dev.infuse.jobs.ingest.IngestJob;
import java.util.Locale;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(
    name = "ingest",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Read benchmark files into the documents and questions tables.",
      "Bad records go to quarantine with file, line and reason; read = written + quarantined."
    })
public final class IngestCommand extends JobCommand {
  @Option(
      names = "--format",
      paramLabel = "FORMAT",
      description =
          "quality, financebench, gsm8k, anli, medqa, longhealth, medec, aci-bench, agentclinic (ingest.format).")
  String format;

  @Option(
      names = "--input",
      paramLabel = "PATH|URI",
      description = "A file or a directory of them (ingest.input).")
  String input;

  @Option(
      names = "--max-bad-fraction",
      paramLabel = "F",
      description =
          "Exit non-zero when more than this fraction of items is quarantined (ingest.max_bad_fraction, default 0.05).")
  Double maxBadFraction;

  @Override
  protected String jobName() {
    return IngestJob.NAME;
  }

  @Override
  protected void applyFlags(ConfigLoader loader) {
    if (format != null) {
      loader.setString("ingest.format", format);
    }
    if (input != null) {
      loader.setString("ingest.input", input);
    }
    if (maxBadFraction != null) {
      loader.set("ingest.max_bad_fraction=" + maxBadFraction);
    }
  }

  @Override
  protected RunCounts execute(JobRun run) {
    return ingest(run);
  }

  /** Runs ingest and applies the bad-record ceiling (after quarantining, so nothing is lost). */
  public static RunCounts ingest(JobRun run) {
    RunCounts counts = new IngestJob(run).run();
    double ceiling = run.config().ingest().maxBadFraction();
    if (counts.input() == 0) {
      throw new JobFailedException(
          "ingest: found no records in "
              + run.config().ingest().input()
              + ", expected at least one",
          counts);
    }
    if (counts.badFraction() > ceiling) {
      throw new JobFailedException(
          String.format(
              Locale.ROOT,
              "ingest: %.1f%% of items were quarantined (%d of %d), above ingest.max_bad_fraction %s; see"
                  + " bin/infuse sql --warehouse %s \"SELECT location, reason FROM quarantine WHERE run_id = '%s'\"",
              100 * counts.badFraction(),
              counts.quarantined(),
              counts.input(),
              ceiling,
              run.config().warehouse(),
              run.runId()),
          counts);
    }
    return counts;
  }
}
