package dev.infuse.jobs.cli;

import dev.infuse.jobs.JobRun;
import dev.infuse.jobs.RunCounts;
import dev.infuse.jobs.config.ConfigLoader;
import dev.infuse.jobs.generate.GenQaJob;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(
    name = "gen-qa",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Generate synthetic question-answer pairs per chunk or document into synthetic_qa.",
      "Every call is cached in llm_calls: a rerun sends no request that already succeeded.",
      "Point it anywhere: --set llm.backend=openai --set llm.base_url=http://host:8000/v1 --set llm.model=NAME"
    })
public final class GenQaCommand extends JobCommand {
  @Option(
      names = "--unit",
      paramLabel = "chunk|document",
      description = "Generate per chunk or per document (gen_qa.unit).")
  String unit;

  @Option(
      names = "--pairs",
      paramLabel = "N",
      description = "Pairs asked for per unit (gen_qa.pairs_per_unit).")
  Integer pairs;

  @Override
  protected String jobName() {
    return GenQaJob.NAME;
  }

  @Override
  protected void applyFlags(ConfigLoader loader) {
    if (unit != null) {
      loader.setString("gen_qa.unit", unit);
    }
    if (pairs != null) {
      loader.set("gen_qa.pairs_per_unit=" + pairs);
    }
  }

  @Override
  protected RunCounts execute(JobRun run) {
    return new GenQaJob(run).run();
  }
}
