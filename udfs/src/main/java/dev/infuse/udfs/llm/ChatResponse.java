package dev.infuse.udfs.llm;

import java.util.List;

/**
 * A completed request.
 *
 * @param texts one completion per choice ({@code n} of them)
 * @param finishReason the first choice's finish reason: stop, length, …
 * @param promptTokens tokens in, as the backend counted them
 * @param completionTokens tokens out, all choices together
 * @param attempts how many tries it took, 1 when the first one succeeded
 * @param latencyMillis wall time from the first try to the answer
 */
public record ChatResponse(
    List<String> texts,
    String finishReason,
    int promptTokens,
    int completionTokens,
    int attempts,
    long latencyMillis) {
  public ChatResponse {
    texts = List.copyOf(texts);
  }

  /** The first completion. */
  public String text() {
    return texts.isEmpty() ? "" : texts.get(0);
  }
}
