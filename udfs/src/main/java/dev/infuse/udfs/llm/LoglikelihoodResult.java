package dev.infuse.udfs.llm;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import dev.infuse.udfs.lm.LogLikelihood;
import java.util.List;

/**
 * The answer to a {@link LoglikelihoodPrompt}, as the {@code openai} backend reads it off the
 * server's echoed prompt log-probabilities and as {@code llm_calls.response_text} stores it (JSON):
 * what lm-evaluation-harness's {@code parse_logprobs} computes, with the continuation's tokens kept
 * for inspection.
 *
 * @param logprob the sum of the continuation tokens' log-probabilities (natural log)
 * @param greedy whether every continuation token's log-probability is the largest of its {@code
 *     top_logprobs}
 * @param tokenLogprobs each continuation token's log-probability, in order
 * @param tokens each continuation token as the server spelled it; empty when it sent none
 */
public record LoglikelihoodResult(
    double logprob, boolean greedy, List<Double> tokenLogprobs, List<String> tokens) {
  private static final ObjectMapper JSON =
      new ObjectMapper().setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE);

  public LoglikelihoodResult {
    tokenLogprobs = List.copyOf(tokenLogprobs);
    tokens = tokens == null ? List.of() : List.copyOf(tokens);
  }

  /** As the in-JVM scorer reports it. */
  public LogLikelihood toLogLikelihood() {
    return new LogLikelihood(logprob, greedy, tokenLogprobs.size());
  }

  /** The JSON stored as the call's response text. */
  public String toJson() {
    try {
      return JSON.writeValueAsString(this);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a log-likelihood result always serialises", e);
    }
  }

  /**
   * Reads a response text back.
   *
   * @throws IllegalArgumentException when the text is not a log-likelihood result (a chat
   *     completion cached under the same key cannot be: the key differs)
   */
  public static LoglikelihoodResult fromJson(String text) {
    try {
      LoglikelihoodResult result = JSON.readValue(text, LoglikelihoodResult.class);
      if (result == null || result.tokenLogprobs().isEmpty()) {
        throw new IllegalArgumentException(
            "not a log-likelihood result (no token_logprobs): " + abbreviate(text));
      }
      return result;
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException(
          "not a log-likelihood result (" + e.getOriginalMessage() + "): " + abbreviate(text), e);
    }
  }

  private static String abbreviate(String text) {
    return text == null || text.length() <= 120
        ? String.valueOf(text)
        : text.substring(0, 120) + "…";
  }
}
