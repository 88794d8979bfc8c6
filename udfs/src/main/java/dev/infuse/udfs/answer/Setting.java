package dev.infuse.udfs.answer;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import dev.infuse.udfs.common.EnumNames;

/**
 * What a model answers with: the question alone or with retrieved chunks, by the base model or a
 * trained one. In the order a reader compares them: without, then with, retrieval and training.
 */
public enum Setting {
  /** The question alone (QuALITY adds its title, never the article). */
  CLOSED_BOOK,
  /** The top-k retrieved chunks in context. */
  RAG,
  /** A trained model, closed book. */
  TRAINED,
  /** A trained model with the retrieved chunks. */
  TRAINED_RAG;

  /** Whether a trained model answers (through the djl backend on a model directory). */
  public boolean trained() {
    return this == TRAINED || this == TRAINED_RAG;
  }

  /** Whether retrieved chunks go into the context. */
  public boolean rag() {
    return this == RAG || this == TRAINED_RAG;
  }

  /** The name in config and in {@code predictions.setting}. */
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
  public static Setting fromName(String name) {
    return EnumNames.parse(Setting.class, name);
  }
}
