package dev.infuse.udfs.llm;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import dev.infuse.udfs.common.EnumNames;

/** Where LLM calls go, chosen by name in config ({@code llm.backend}). */
public enum LlmBackend {
  /**
   * Model-free and deterministic: answers from the request's structured task inputs, in the format
   * the prompt asks a model for. The default, so the demo needs no model server.
   */
  EXTRACTIVE,
  /** Any OpenAI-compatible endpoint: vLLM, SGLang, TGI, llama.cpp server, OpenAI. */
  OPENAI,
  /**
   * A model directory from {@code train} (or a TorchScript export), run inside the executor JVM.
   */
  DJL;

  /** The name in config and in each request's cache key. */
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
  public static LlmBackend fromName(String name) {
    return EnumNames.parse(LlmBackend.class, name);
  }
}
