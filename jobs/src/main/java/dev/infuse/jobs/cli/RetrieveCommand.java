package dev.infuse.jobs.cli;

import dev.infuse.jobs.JobRun;
import dev.infuse.jobs.RunCounts;
import dev.infuse.jobs.config.ConfigLoader;
import dev.infuse.jobs.retrieve.RetrieveJob;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(
    name = "retrieve",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Retrieve the top-k chunks per question into retrievals, and recall@k into retrieval_recall",
      "where gold evidence is known. Needs `index` to have run over the current chunks."
    })
public final class RetrieveCommand extends JobCommand {
  @Option(
      names = "--retriever",
      paramLabel = "bm25|dense|hybrid",
      description = "The retriever (retrieve.retriever).")
  String retriever;

  @Option(
      names = "--k",
      paramLabel = "N",
      description = "Chunks per question (retrieve.k, default 10).")
  Integer k;

  @Option(
      names = "--scoping",
      paramLabel = "auto|document|corpus",
      description =
          "Search the question's document or its whole corpus (retrieve.scoping, default auto).")
  String scoping;

  @Option(
      names = "--benchmark",
      paramLabel = "NAME",
      description = "Only this benchmark's questions (retrieve.benchmark).")
  String benchmark;

  @Option(
      names = "--max-questions",
      paramLabel = "N",
      description = "The first N questions by question_id; 0 for all (retrieve.max_questions).")
  Integer maxQuestions;

  @Override
  protected String jobName() {
    return RetrieveJob.NAME;
  }

  @Override
  protected void applyFlags(ConfigLoader loader) {
    if (retriever != null) {
      loader.setString("retrieve.retriever", retriever);
    }
    if (k != null) {
      loader.set("retrieve.k=" + k);
    }
    if (scoping != null) {
      loader.setString("retrieve.scoping", scoping);
    }
    if (benchmark != null) {
      loader.setString("retrieve.benchmark", benchmark);
    }
    if (maxQuestions != null) {
      loader.set("retrieve.max_questions=" + maxQuestions);
    }
  }

  @Override
  protected RunCounts execute(JobRun run) {
    return new RetrieveJob(run).run();
  }
}
