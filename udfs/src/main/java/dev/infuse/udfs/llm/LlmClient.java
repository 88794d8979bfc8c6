package dev.infuse.udfs.llm;

import java.util.concurrent.CompletableFuture;

/**
 * Chat completion, whatever serves it. Every LLM call Infuse makes goes through one of these.
 * Implementations are thread-safe and built once per executor JVM ({@link LlmClients}); they bound
 * their own in-flight requests.
 */
public interface LlmClient extends AutoCloseable {
  /** The backend name, part of every request key: {@code openai}, {@code extractive}, … */
  String backend();

  /**
   * Sends the request. The future completes with the response, or exceptionally with an {@link
   * LlmCallException} once retries are exhausted or the row timeout passes.
   */
  CompletableFuture<ChatResponse> complete(ChatRequest request);

  @Override
  default void close() {}
}
