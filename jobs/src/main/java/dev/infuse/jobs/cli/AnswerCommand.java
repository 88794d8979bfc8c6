package dev.infuse.jobs.cli;

import dev.infuse.jobs.answer.AnswerJob;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(
    name = "answer",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    header = "Answer a benchmark with one model in one setting.",
    description = {
      "Answers one benchmark's questions into predictions. Settings: closed_book, rag "
          + "(top-k chunks of retrievals in context), trained and trained_rag (answer.model_dir). "
          + "Modes: generate (LLM client layer, cached in llm_calls), loglikelihood (djl), "
          + "embedding (the model-free default: the option most similar to the context; weak but "
          + "real). Backend and model: the llm section."
    })
public final class AnswerCommand extends JobCommand {
  @Option(
      names = "--benchmark",
      paramLabel = "NAME",
      description = "quality, longhealth, medqa, financebench, gsm8k or anli.")
  @ConfigKey("answer.benchmark")
  String benchmark;

  @Option(
      names = "--setting",
      paramLabel = "closed_book|rag|trained|trained_rag",
      description = "What the model answers with.")
  @ConfigKey("answer.setting")
  String setting;

  @Option(
      names = "--mode",
      paramLabel = "auto|generate|loglikelihood|embedding|behavior",
      description =
          "How an answer is got from the model; behavior answers behavior.tasks_table as a"
              + " clinical assistant.")
  @ConfigKey("answer.mode")
  String mode;

  @Option(
      names = "--retriever",
      paramLabel = "bm25|dense|hybrid",
      description = "Whose retrievals to put in context; default: the only one there.")
  @ConfigKey("answer.retriever")
  String retriever;

  @Option(names = "--k", paramLabel = "N", description = "Retrieved chunks in context.")
  @ConfigKey("answer.k")
  Integer k;

  @Option(
      names = "--chunk-order",
      paramLabel = "best_first|best_last",
      description = "Where the best chunk goes.")
  @ConfigKey("answer.chunk_order")
  String chunkOrder;

  @Option(
      names = "--model-dir",
      paramLabel = "DIR",
      description = "The trained model for the trained settings.")
  @ConfigKey("answer.model_dir")
  String modelDir;

  @Option(names = "--chain-of-thought", description = "Ask for reasoning before the answer.")
  @ConfigKey("answer.chain_of_thought")
  Boolean chainOfThought;

  @Option(
      names = "--max-questions",
      paramLabel = "N",
      description = "The most questions, by id; 0 for all.")
  @ConfigKey("answer.max_questions")
  Integer maxQuestions;

  public AnswerCommand() {
    super(AnswerJob.NAME, run -> new AnswerJob(run).run());
  }
}
