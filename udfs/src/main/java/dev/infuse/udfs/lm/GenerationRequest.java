package dev.infuse.udfs.lm;

import java.util.Objects;

/** One row to generate: the prompt text and its own options. */
public record GenerationRequest(String prompt, GenerationOptions options) {
  public GenerationRequest {
    Objects.requireNonNull(prompt, "prompt");
    Objects.requireNonNull(options, "options");
  }
}
