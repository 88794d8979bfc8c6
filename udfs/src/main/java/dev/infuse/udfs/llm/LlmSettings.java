package dev.infuse.udfs.llm;

import dev.infuse.udfs.model.Devices;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;

/**
 * How to reach a backend: the {@code llm} config section. Small and serializable, so a Spark
 * closure can carry it and each executor builds its own client from it ({@link LlmClients}). It
 * holds the NAME of the environment variable with the API key, never the key.
 *
 * @param backend where the calls go
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
    LlmBackend backend,
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
      LlmBackend backend,
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

  /** The same settings for another backend and model: a trained model answering through djl. */
  public LlmSettings withModel(LlmBackend newBackend, String newModel) {
    return new LlmSettings(
        newBackend,
        baseUrl,
        newModel,
        apiKeyEnv,
        maxConcurrency,
        requestTimeoutSeconds,
        rowTimeoutSeconds,
        maxAttempts,
        initialBackoffMillis,
        maxBackoffMillis,
        device);
  }

  /**
   * The same limits for another OpenAI-compatible endpoint: a trained model served over HTTP
   * answering through the openai backend.
   */
  public LlmSettings withEndpoint(String newBaseUrl, String newModel, String newApiKeyEnv) {
    return new LlmSettings(
        LlmBackend.OPENAI,
        newBaseUrl,
        newModel,
        newApiKeyEnv,
        maxConcurrency,
        requestTimeoutSeconds,
        rowTimeoutSeconds,
        maxAttempts,
        initialBackoffMillis,
        maxBackoffMillis,
        device);
  }

  /**
   * Every value no client can work with, as "key: got X, expected Y" with the {@code llm} section's
   * YAML keys; empty when valid. The base URL and API key are checked by the backend that needs
   * them.
   */
  public List<String> problems() {
    List<String> problems = new ArrayList<>();
    if (maxConcurrency < 1) {
      problems.add("max_concurrency: got " + maxConcurrency + ", expected an integer >= 1");
    }
    if (maxAttempts < 1) {
      problems.add("max_attempts: got " + maxAttempts + ", expected an integer >= 1");
    }
    if (requestTimeoutSeconds < 1) {
      problems.add(
          "request_timeout_seconds: got " + requestTimeoutSeconds + ", expected an integer >= 1");
    }
    if (rowTimeoutSeconds < 1) {
      problems.add("row_timeout_seconds: got " + rowTimeoutSeconds + ", expected an integer >= 1");
    }
    if (initialBackoffMillis < 1) {
      problems.add(
          "initial_backoff_millis: got " + initialBackoffMillis + ", expected an integer >= 1");
    }
    if (maxBackoffMillis < initialBackoffMillis) {
      problems.add(
          "max_backoff_millis: got "
              + maxBackoffMillis
              + ", expected at least initial_backoff_millis ("
              + initialBackoffMillis
              + ")");
    }
    String deviceProblem = Devices.problem(device);
    if (deviceProblem != null) {
      problems.add(deviceProblem);
    }
    return problems;
  }
}
