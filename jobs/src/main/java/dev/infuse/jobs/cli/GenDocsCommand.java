package dev.infuse.jobs.cli;

import dev.infuse.jobs.generate.GenDocsJob;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(
    name = "gen-docs",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    header = "Generate rephrases, entity documents and focal rewrites.",
    description = {
      "Style rephrases, entity documents (per entity, pair and triple) and focal rewrites "
          + "conditioned on synthetic_qa questions, into synthetic_docs. Every call is cached in "
          + "llm_calls: a rerun sends no request that already succeeded."
    })
public final class GenDocsCommand extends JobCommand {
  @Option(
      names = "--kinds",
      paramLabel = "KIND",
      split = ",",
      description = "Which kinds: rephrase, entity, focal.")
  @ConfigKey("gen_docs.kinds")
  List<String> kinds;

  @Option(
      names = "--entity-recipe",
      paramLabel = "capped|entigraph",
      description =
          "Entity documents: capped singles, pairs and triples, or EntiGraph's summary, every"
              + " entity, every pair and seeded triples.")
  @ConfigKey("gen_docs.entity_recipe")
  String entityRecipe;

  @Option(
      names = "--target-tokens",
      paramLabel = "N",
      description =
          "Generate in waves until synthetic_docs holds N unique synthetic tokens for these"
              + " sources, kinds and generator, then stop; a rerun with a larger N generates only"
              + " the difference. 0: off.")
  @ConfigKey("gen_docs.target_tokens")
  Long targetTokens;

  public GenDocsCommand() {
    super(GenDocsJob.NAME, run -> new GenDocsJob(run).run());
  }
}
