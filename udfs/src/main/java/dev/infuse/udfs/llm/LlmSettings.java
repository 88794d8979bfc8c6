package dev.infuse.udfs.llm;

import java.io.Serializable;

/**
 * How to reach a backend: the {@code llm} config section. Small and serializable, so a Spark
 * closure can carry it and each executor builds its own client from it ({@link LlmClients}). It
 * holds the NAME of the environment variable with the API key, never the key.
 *
 * @param backend openai, extractive (default), djl
 * @param baseUrl e.g. {@code http://host:8000/v1}
 * @param model the model name sent to the backend
 * @param apiKeyEnv the environment variable holding the API key; null or blank for none
 * @param maxConcurrency in-flight requests per executor JVM
 * @param requestTimeoutSeconds one HTTP attempt
 * @param rowTimeoutSeconds one row, all attempts and backoff included
 * @param maxAttempts tries per request, the first included
 * @param initialBackoffMillis first retry wait; doubles each retry, with jitter
 * @param maxBackoffMillis cap on one wait (a longer Retry-After is honoured up to the row timeout)
 * @param device for djl: auto, cpu, gpu or gpu:N (see {@code dev.infuse.udfs.model.Devices})
 */
public record LlmSettings(
    String backend,
    String baseUrl,
    String model,
    String apiKeyEnv,
    int maxConcurrency,
    int requestTimeoutSeconds,
    int rowTimeoutSeconds,
    int maxAttempts,
    long initialBackoffMillis,
    long maxBackoffMillis,
    String device)
    implements Serializable {

  /** Settings for a backend that runs no local model: the device is {@code auto}. */
  public LlmSettings(
      String backend,
      String baseUrl,
      String model,
      String apiKeyEnv,
      int maxConcurrency,
      int requestTimeoutSeconds,
      int rowTimeoutSeconds,
      int maxAttempts,
      long initialBackoffMillis,
      long maxBackoffMillis) {
    this(
        backend,
        baseUrl,
        model,
        apiKeyEnv,
        maxConcurrency,
        requestTimeoutSeconds,
        rowTimeoutSeconds,
        maxAttempts,
        initialBackoffMillis,
        maxBackoffMillis,
        "auto");
  }
}
