package dev.infuse.jobs.cli;

import dev.infuse.jobs.JobRun;
import dev.infuse.jobs.RunCounts;
import dev.infuse.jobs.answer.AnswerJob;
import dev.infuse.jobs.config.ConfigLoader;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(
    name = "answer",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Answer one benchmark's questions with one backend and model in one setting into predictions.",
      "Settings: closed_book, rag (top-k chunks of retrievals in context), trained and trained_rag (answer.model_dir).",
      "Modes: generate (LLM client layer, cached in llm_calls), loglikelihood (djl), embedding (the model-free",
      "default: the option most similar to the context; weak but real). Backend and model: the llm section."
    })
public final class AnswerCommand extends JobCommand {
  @Option(
      names = "--benchmark",
      paramLabel = "NAME",
      description = "quality, longhealth, medqa, financebench, gsm8k or anli (answer.benchmark).")
  String benchmark;

  @Option(
      names = "--setting",
      paramLabel = "closed_book|rag|trained|trained_rag",
      description = "(answer.setting)")
  String setting;

  @Option(
      names = "--mode",
      paramLabel = "auto|generate|loglikelihood|embedding",
      description = "(answer.mode)")
  String mode;

  @Option(
      names = "--retriever",
      paramLabel = "bm25|dense|hybrid",
      description =
          "Whose retrievals to put in context; default: the only one there (answer.retriever).")
  String retriever;

  @Option(
      names = "--k",
      paramLabel = "N",
      description = "Retrieved chunks in context (answer.k, default 4).")
  Integer k;

  @Option(
      names = "--chunk-order",
      paramLabel = "best_first|best_last",
      description = "(answer.chunk_order)")
  String chunkOrder;

  @Option(
      names = "--model-dir",
      paramLabel = "DIR",
      description = "The trained model for the trained settings (answer.model_dir).")
  String modelDir;

  @Option(
      names = "--chain-of-thought",
      description = "Ask for reasoning before the answer (answer.chain_of_thought).")
  Boolean chainOfThought;

  @Option(
      names = "--max-questions",
      paramLabel = "N",
      description = "The most questions, by id; 0 for all (answer.max_questions).")
  Integer maxQuestions;

  @Override
  protected String jobName() {
    return AnswerJob.NAME;
  }

  @Override
  protected void applyFlags(ConfigLoader loader) {
    if (benchmark != null) {
      loader.setString("answer.benchmark", benchmark);
    }
    if (setting != null) {
      loader.setString("answer.setting", setting);
    }
    if (mode != null) {
      loader.setString("answer.mode", mode);
    }
    if (retriever != null) {
      loader.setString("answer.retriever", retriever);
    }
    if (k != null) {
      loader.set("answer.k=" + k);
    }
    if (chunkOrder != null) {
      loader.setString("answer.chunk_order", chunkOrder);
    }
    if (modelDir != null) {
      loader.setString("answer.model_dir", modelDir);
    }
    if (chainOfThought != null) {
      loader.set("answer.chain_of_thought=" + chainOfThought);
    }
    if (maxQuestions != null) {
      loader.set("answer.max_questions=" + maxQuestions);
    }
  }

  @Override
  protected RunCounts execute(JobRun run) {
    return new AnswerJob(run).run();
  }
}
