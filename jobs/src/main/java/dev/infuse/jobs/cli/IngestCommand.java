package dev.infuse.jobs.cli;

import dev.infuse.jobs.ingest.IngestJob;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(
    name = "ingest",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    header = "Read benchmark files into the documents and questions tables.",
    description = {
      "Formats: quality, financebench, gsm8k, anli, medqa, longhealth, medec, aci-bench, "
          + "agentclinic. Bad records go to quarantine with file, line and reason; read = written "
          + "+ quarantined."
    })
public final class IngestCommand extends JobCommand {
  @Option(names = "--format", paramLabel = "FORMAT", description = "The reader.")
  @ConfigKey("ingest.format")
  String format;

  @Option(
      names = "--input",
      paramLabel = "PATH|URI",
      description = "A file or a directory of them.")
  @ConfigKey("ingest.input")
  String input;

  @Option(
      names = "--max-bad-fraction",
      paramLabel = "F",
      description = "Exit non-zero when more than this fraction of items is quarantined.")
  @ConfigKey("ingest.max_bad_fraction")
  Double maxBadFraction;

  public IngestCommand() {
    super(IngestJob.NAME, run -> new IngestJob(run).run());
  }
}
