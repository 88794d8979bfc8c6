package dev.infuse.jobs.cli;

import dev.infuse.jobs.generate.GenQaJob;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(
    name = "gen-qa",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    header = "Generate synthetic question-answer pairs into synthetic_qa.",
    description = {
      "Every call is cached in llm_calls: a rerun sends no request that already succeeded. "
          + "Point it anywhere: --set llm.backend=openai --set llm.base_url=http://host:8000/v1 "
          + "--set llm.model=NAME"
    })
public final class GenQaCommand extends JobCommand {
  @Option(
      names = "--unit",
      paramLabel = "chunk|document",
      description = "Generate per chunk or per document.")
  @ConfigKey("gen_qa.unit")
  String unit;

  @Option(names = "--pairs", paramLabel = "N", description = "Pairs asked for per unit.")
  @ConfigKey("gen_qa.pairs_per_unit")
  Integer pairs;

  public GenQaCommand() {
    super(GenQaJob.NAME, run -> new GenQaJob(run).run());
  }
}
