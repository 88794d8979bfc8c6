package dev.infuse.jobs.answer;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import dev.infuse.udfs.common.EnumNames;

/** How the answer job gets an answer out of a model ({@code answer.mode}). */
public enum AnswerMode {
  /**
   * embedding for the extractive backend, loglikelihood for djl on choice questions, else generate.
   */
  AUTO,
  /** A chat completion through the LLM client layer, then answer extraction. */
  GENERATE,
  /** Every option's log-likelihood after the prompt (djl only): acc and acc_norm. */
  LOGLIKELIHOOD,
  /** The model-free default: the option most similar to the context under the embed model. */
  EMBEDDING,
  /**
   * The clinical behaviour recipe: the model acts as an assistant in each behaviour task's context;
   * writes behavior_predictions, not predictions.
   */
  BEHAVIOR;

  /** The name in config and in {@code predictions.answer_mode}. */
  @JsonValue
  public String id() {
    return EnumNames.id(this);
  }

  /** As spelled in config, so messages read like the YAML. */
  @Override
  public String toString() {
    return id();
  }

  @JsonCreator
  public static AnswerMode fromName(String name) {
    return EnumNames.parse(AnswerMode.class, name);
  }
}
