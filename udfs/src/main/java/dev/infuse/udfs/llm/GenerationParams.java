package dev.infuse.udfs.llm;

import java.util.List;

/**
 * Sampling and output settings of one request.
 *
 * @param maxTokens the most completion tokens
 * @param temperature 0 for greedy
 * @param topP nucleus mass, 1 for none
 * @param n completions per request
 * @param stop stop strings, possibly empty
 * @param seed the sampling seed, derived from (run seed, row key); null lets the backend choose
 * @param jsonMode ask for a JSON object (OpenAI {@code response_format: json_object}) where
 *     supported
 * @param jsonSchema a JSON Schema for the output, as JSON text, where supported; null for none
 */
public record GenerationParams(
    int maxTokens,
    double temperature,
    double topP,
    int n,
    List<String> stop,
    Long seed,
    boolean jsonMode,
    String jsonSchema) {
  public GenerationParams {
    stop = stop == null ? List.of() : List.copyOf(stop);
  }
}
