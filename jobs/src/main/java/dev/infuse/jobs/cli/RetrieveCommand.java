package dev.infuse.jobs.cli;

import dev.infuse.jobs.retrieve.RetrieveJob;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(
    name = "retrieve",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    header = "Retrieve the top-k chunks of each question, with recall@k.",
    description = {
      "recall@k goes to retrieval_recall where gold evidence is known. Needs `index` to "
          + "have run over the current chunks."
    })
public final class RetrieveCommand extends JobCommand {
  @Option(names = "--retriever", paramLabel = "bm25|dense|hybrid", description = "The retriever.")
  @ConfigKey("retrieve.retriever")
  String retriever;

  @Option(names = "--k", paramLabel = "N", description = "Chunks per question.")
  @ConfigKey("retrieve.k")
  Integer k;

  @Option(
      names = "--scoping",
      paramLabel = "auto|document|corpus",
      description = "Search the question's document or its whole corpus.")
  @ConfigKey("retrieve.scoping")
  String scoping;

  @Option(
      names = "--benchmark",
      paramLabel = "NAME",
      description = "Only this benchmark's questions.")
  @ConfigKey("retrieve.benchmark")
  String benchmark;

  @Option(
      names = "--max-questions",
      paramLabel = "N",
      description = "The first N questions by question_id; 0 for all.")
  @ConfigKey("retrieve.max_questions")
  Integer maxQuestions;

  @Option(
      names = "--query-template",
      paramLabel = "ID",
      description =
          "How a question becomes its query: a template id in run.prompts_dir"
              + " (query/question, query/entigraph).")
  @ConfigKey("retrieve.query_template")
  String queryTemplate;

  @Option(
      names = "--rerank",
      paramLabel = "DIR",
      description =
          "Rerank with this local cross-encoder (model.onnx or model.pt beside tokenizer.json).")
  @ConfigKey("retrieve.rerank")
  String rerank;

  public RetrieveCommand() {
    super(RetrieveJob.NAME, run -> new RetrieveJob(run).run());
  }
}
