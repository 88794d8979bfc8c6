package dev.infuse.jobs.answer;

import dev.infuse.jobs.config.ConfigSection;
import dev.infuse.udfs.answer.Setting;
import dev.infuse.udfs.lm.AddBos;
import dev.infuse.udfs.retrieve.ChunkOrder;
import dev.infuse.udfs.retrieve.Retriever;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@code answer} section: one backend and model on one benchmark's questions in one setting.
 * See defaults.yaml for each key.
 *
 * @param benchmark questions.benchmark to answer; required by the job (null here so other jobs need
 *     none)
 * @param split only this split; null for all
 * @param setting closed_book, rag (retrieved chunks in context), trained (the model in {@code
 *     model_dir}) or trained_rag
 * @param mode auto, generate, loglikelihood or embedding
 * @param addBos loglikelihood mode: whether each context starts with the tokenizer's BOS ({@link
 *     AddBos}: auto as lm-evaluation-harness from v0.4.9.2, true, or false as before it)
 * @param retriever which retriever's rows of {@code retrievals} to use; null for the only one there
 * @param k the top-k retrieved chunks put in context
 * @param chunkOrder best_first or best_last (the best chunk nearest the question)
 * @param reader {@value #ZERO_SHOT} (the benchmark's prompt format) or {@value #FEW_SHOT_COT} (the
 *     versioned few-shot chain-of-thought prompt for base models, {@value #FEW_SHOT_COT_PROMPT});
 *     generate mode only
 * @param modelDir the model directory from {@code train} for the trained settings
 * @param endpoint instead of {@code modelDir}: the trained model served by an OpenAI-compatible
 *     endpoint, answered through the openai backend ({@link EndpointModel})
 * @param maxQuestions the most questions, in question_id order; 0 for all
 */
public record AnswerConfig(
    String benchmark,
    String split,
    Setting setting,
    AnswerMode mode,
    AddBos addBos,
    Retriever retriever,
    int k,
    ChunkOrder chunkOrder,
    String reader,
    boolean chainOfThought,
    String modelDir,
    EndpointModel endpoint,
    int maxTokens,
    double temperature,
    int maxQuestions)
    implements ConfigSection {
  public static final String ZERO_SHOT = "zero_shot";
  public static final String FEW_SHOT_COT = "few_shot_cot";

  /** The prompt template (conf/prompts) of the few-shot reader. */
  public static final String FEW_SHOT_COT_PROMPT = "reader-mcq-fewshot-cot";

  /** Whether answers are asked with the few-shot chain-of-thought reader. */
  public boolean fewShot() {
    return FEW_SHOT_COT.equals(reader);
  }

  @Override
  public List<String> problems() {
    List<String> problems = new ArrayList<>();
    if (!ZERO_SHOT.equals(reader) && !FEW_SHOT_COT.equals(reader)) {
      problems.add("reader: got " + reader + ", expected " + ZERO_SHOT + " or " + FEW_SHOT_COT);
    }
    if (setting == null) {
      problems.add("setting: got nothing, expected closed_book, rag, trained or trained_rag");
    }
    if (mode == null) {
      problems.add("mode: got nothing, expected auto, generate, loglikelihood or embedding");
    }
    if (addBos == null) {
      problems.add("add_bos: got nothing, expected auto, true or false");
    }
    if (chunkOrder == null) {
      problems.add("chunk_order: got nothing, expected best_first or best_last");
    }
    if (k < 1) {
      problems.add("k: got " + k + ", expected an integer >= 1");
    }
    if (maxTokens < 1) {
      problems.add("max_tokens: got " + maxTokens + ", expected an integer >= 1");
    }
    if (!(temperature >= 0)) {
      problems.add("temperature: got " + temperature + ", expected >= 0 (0 for greedy)");
    }
    if (endpoint != null) {
      endpoint.problems().forEach(p -> problems.add("endpoint." + p));
      if (modelDir != null && !modelDir.isBlank()) {
        problems.add(
            "endpoint: got "
                + endpoint.label()
                + " with model_dir "
                + modelDir
                + ", expected one trained model: a model directory or an endpoint");
      }
    }
    if (maxQuestions < 0) {
      problems.add("max_questions: got " + maxQuestions + ", expected >= 0 (0 for all)");
    }
    return problems;
  }
}
