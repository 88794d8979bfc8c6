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

  @Option(
      names = "--target-tokens",
      paramLabel = "N",
      description =
          "Generate in waves until synthetic_qa holds N unique synthetic tokens (each distinct"
              + " pair as trained) for these documents and generator, then stop; a rerun with a"
              + " larger N generates only the difference. 0: off.")
  @ConfigKey("gen_qa.target_tokens")
  Long targetTokens;

  public GenQaCommand() {
    super(GenQaJob.NAME, run -> new GenQaJob(run).run());
  }
}
