package dev.infuse.jobs.cli;

import dev.infuse.jobs.JobRun;
import dev.infuse.jobs.RunCounts;
import dev.infuse.jobs.config.ConfigLoader;
import dev.infuse.jobs.generate.GenDocsJob;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(
    name = "gen-docs",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Generate synthetic documents into synthetic_docs: style rephrases, entity documents",
      "(per entity, pair and triple) and focal rewrites conditioned on synthetic_qa questions.",
      "Every call is cached in llm_calls: a rerun sends no request that already succeeded."
    })
public final class GenDocsCommand extends JobCommand {
  @Option(
      names = "--kinds",
      paramLabel = "KIND",
      split = ",",
      description = "Which kinds: rephrase, entity, focal (gen_docs.kinds; default all three).")
  List<String> kinds;

  @Override
  protected String jobName() {
    return GenDocsJob.NAME;
  }

  @Override
  protected void applyFlags(ConfigLoader loader) {
    if (kinds != null) {
      loader.set("gen_docs.kinds=[" + String.join(", ", kinds) + "]");
    }
  }

  @Override
  protected RunCounts execute(JobRun run) {
    return new GenDocsJob(run).run();
  }
}
