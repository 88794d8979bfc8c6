package dev.infuse.udfs.llm;

import io.github.resilience4j.core.IntervalFunction;
import io.github.resilience4j.core.functions.Either;
import io.github.resilience4j.retry.Retry;
import io.github.resilience4j.retry.RetryConfig;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Any OpenAI-compatible server (OpenAI, vLLM, SGLang, llama.cpp, TGI…) over the JDK HTTP client:
 * chat completions at {@code <base_url>/chat/completions}, and log-likelihood requests ({@link
 * ChatRequest#loglikelihood()}) at {@code <base_url>/completions} with echoed prompt
 * log-probabilities, as lm-evaluation-harness's {@code local-completions} model asks them. Built
 * once per executor JVM ({@link LlmClients}), it bounds its own in-flight rows, retries what is
 * transient (429, 5xx, timeouts, dropped connections, truncated bodies) with jittered exponential
 * backoff that honours {@code Retry-After}, and fails the rest at once.
 *
 * <p>A row holds one of {@code maxConcurrency} permits from its first attempt to its last, backoff
 * included, so a rate-limited server sees fewer requests rather than the same load retried. The row
 * timeout starts when the row gets its permit, not when it is queued: callers may queue thousands.
 */
public final class OpenAiClient implements LlmClient {

  private static final Logger LOG = LoggerFactory.getLogger(OpenAiClient.class);

  private final LlmSettings settings;
  private final URI endpoint;
  private final URI completionsEndpoint;
  private final String apiKey;
  private final ExecutorService httpExecutor;
  private final ScheduledThreadPoolExecutor scheduler;
  private final HttpClient http;
  private final Retry retry;
  private final AsyncPermits permits;
  private final Set<Row> live = ConcurrentHashMap.newKeySet();
  private final Clock clock = Clock.systemUTC();
  private volatile boolean closed;

  public OpenAiClient(LlmSettings settings) {
    this(settings, System::getenv);
  }

  /**
   * @param env looks up environment variables; tests pass their own
   */
  OpenAiClient(LlmSettings settings, Function<String, String> env) {
    this.settings = validate(settings);
    this.endpoint = endpoint(settings.baseUrl(), "/chat/completions");
    this.completionsEndpoint = endpoint(settings.baseUrl(), "/completions");
    this.apiKey = apiKey(settings.apiKeyEnv(), env);
    this.httpExecutor = Executors.newCachedThreadPool(daemonThreads("infuse-openai-http"));
    this.scheduler = new ScheduledThreadPoolExecutor(1, daemonThreads("infuse-openai-scheduler"));
    scheduler.setRemoveOnCancelPolicy(true);
    this.http =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(settings.requestTimeoutSeconds()))
            .executor(httpExecutor)
            .build();
    IntervalFunction backoff =
        IntervalFunction.ofExponentialRandomBackoff(
            settings.initialBackoffMillis(), 2.0, 0.5, settings.maxBackoffMillis());
    RetryConfig config =
        RetryConfig.<ChatResponse>custom()
            .maxAttempts(settings.maxAttempts())
            .retryOnException(t -> t instanceof AttemptFailure f && f.retryable())
            .intervalBiFunction(
                (Integer attempt, Either<Throwable, ChatResponse> outcome) ->
                    wait(backoff, attempt, outcome))
            .build();
    this.retry = Retry.of(LlmBackend.OPENAI.id(), config);
    this.permits = new AsyncPermits(settings.maxConcurrency(), scheduler);
  }

  @Override
  public String backend() {
    return LlmBackend.OPENAI.id();
  }

  @Override
  public CompletableFuture<ChatResponse> complete(ChatRequest request) {
    Objects.requireNonNull(request, "request");
    byte[] body;
    try {
      body =
          request.loglikelihood() == null
              ? OpenAiWire.encodeRequest(request, settings.model())
              : OpenAiWire.encodeCompletionRequest(request, settings.model());
    } catch (IllegalArgumentException e) {
      return CompletableFuture.failedFuture(
          new LlmCallException("openai: cannot send the request: " + e.getMessage(), 0, 0, e));
    }
    Row row =
        new Row(
            body,
            request.loglikelihood(),
            request.loglikelihood() == null ? endpoint : completionsEndpoint);
    live.add(row);
    row.result.whenComplete((response, error) -> finished(row));
    if (closed) {
      row.result.completeExceptionally(closedException(row));
      return row.result;
    }
    permits.submit(() -> start(row));
    return row.result;
  }

  /** Rows holding a permit now: started and not finished. At most {@code maxConcurrency}. */
  public int inFlight() {
    return permits.held();
  }

  /** Rows waiting for a permit. */
  public int queued() {
    return permits.waiting();
  }

  /** Fails the rows not yet finished and stops the client's threads. */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    permits.drain();
    for (Row row : live) {
      row.result.completeExceptionally(closedException(row));
    }
    scheduler.shutdownNow();
    httpExecutor.shutdown();
  }

  @Override
  public String toString() {
    return "OpenAiClient[endpoint="
        + endpoint
        + ", model="
        + settings.model()
        + ", apiKeyEnv="
        + (apiKey == null ? "(none)" : settings.apiKeyEnv())
        + ", maxConcurrency="
        + settings.maxConcurrency()
        + ", maxAttempts="
        + settings.maxAttempts()
        + "]";
  }

  private void start(Row row) {
    row.started = true;
    if (row.result.isDone()) {
      returnPermit(row);
      return;
    }
    row.startNanos = System.nanoTime();
    try {
      row.timer =
          scheduler.schedule(() -> timeOut(row), settings.rowTimeoutSeconds(), TimeUnit.SECONDS);
      Retry.decorateCompletionStage(retry, scheduler, () -> attempt(row))
          .get()
          .whenComplete(
              (response, error) -> {
                returnPermit(row);
                if (error == null) {
                  row.result.complete(response);
                } else {
                  row.result.completeExceptionally(callException(row, error));
                }
              });
    } catch (RejectedExecutionException e) {
      returnPermit(row);
      row.result.completeExceptionally(closedException(row));
    }
  }

  private CompletionStage<ChatResponse> attempt(Row row) {
    row.attemptRunning.set(true);
    if (row.result.isDone() || closed) {
      row.attemptRunning.set(false);
      returnPermit(row);
      return CompletableFuture.failedFuture(
          new AttemptFailure("the row already finished", row.lastStatus, false, -1, null));
    }
    int attempt = row.attempts.incrementAndGet();
    HttpRequest.Builder request =
        HttpRequest.newBuilder(row.endpoint)
            .timeout(Duration.ofSeconds(settings.requestTimeoutSeconds()))
            .header("Content-Type", "application/json")
            .header("Accept", "application/json")
            .POST(HttpRequest.BodyPublishers.ofByteArray(row.body));
    if (apiKey != null) {
      request.header("Authorization", "Bearer " + apiKey);
    }
    CompletableFuture<HttpResponse<byte[]>> sent;
    try {
      sent = http.sendAsync(request.build(), HttpResponse.BodyHandlers.ofByteArray());
    } catch (RuntimeException e) {
      row.attemptRunning.set(false);
      return CompletableFuture.failedFuture(
          new AttemptFailure("could not send: " + describe(e), 0, false, -1, e));
    }
    row.http = sent;
    return sent.handle(
        (response, error) -> {
          try {
            return outcome(row, attempt, response, error);
          } finally {
            row.attemptRunning.set(false);
            if (row.result.isDone()) {
              returnPermit(row);
            }
          }
        });
  }

  /** The attempt's response, or the {@link AttemptFailure} that says whether to try again. */
  private ChatResponse outcome(
      Row row, int attempt, HttpResponse<byte[]> response, Throwable error) {
    if (error != null) {
      row.lastStatus = 0;
      Throwable cause = unwrap(error);
      if (row.result.isDone() || cause instanceof CancellationException) {
        throw new AttemptFailure("the row already finished", 0, false, -1, cause);
      }
      if (cause instanceof HttpConnectTimeoutException) {
        throw retrying(
            attempt,
            new AttemptFailure(
                "connect to "
                    + row.endpoint
                    + " timed out after "
                    + settings.requestTimeoutSeconds()
                    + " s",
                0,
                true,
                -1,
                cause));
      }
      if (cause instanceof HttpTimeoutException) {
        throw retrying(
            attempt,
            new AttemptFailure(
                "request to "
                    + row.endpoint
                    + " timed out after "
                    + settings.requestTimeoutSeconds()
                    + " s",
                0,
                true,
                -1,
                cause));
      }
      if (cause instanceof IOException) {
        throw retrying(
            attempt,
            new AttemptFailure(
                "connection to " + row.endpoint + " failed: " + describe(cause),
                0,
                true,
                -1,
                cause));
      }
      throw new AttemptFailure(
          "request to " + row.endpoint + " failed: " + describe(cause), 0, false, -1, cause);
    }
    int status = response.statusCode();
    row.lastStatus = status;
    if (status >= 200 && status < 300) {
      try {
        OpenAiWire.Completion completion =
            row.loglikelihood == null
                ? OpenAiWire.decodeResponse(response.body())
                : OpenAiWire.decodeLoglikelihood(response.body(), row.loglikelihood);
        long latencyMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - row.startNanos);
        return new ChatResponse(
            completion.texts(),
            completion.finishReason(),
            completion.promptTokens(),
            completion.completionTokens(),
            attempt,
            latencyMillis);
      } catch (OpenAiWire.MalformedResponseException e) {
        throw retrying(
            attempt,
            new AttemptFailure(
                "malformed HTTP "
                    + status
                    + " response from "
                    + row.endpoint
                    + ": "
                    + redact(e.getMessage()),
                status,
                true,
                -1,
                null));
      } catch (OpenAiWire.UnusableResponseException e) {
        throw new AttemptFailure(
            "HTTP " + status + " from " + row.endpoint + ": " + redact(e.getMessage()),
            status,
            false,
            -1,
            null);
      }
    }
    boolean retryable = status == 429 || status == 408 || status >= 500;
    long retryAfter =
        RetryAfter.millis(response.headers().firstValue("Retry-After").orElse(null), clock)
            .orElse(-1);
    AttemptFailure failure =
        new AttemptFailure(
            "HTTP "
                + status
                + " from "
                + row.endpoint
                + ": "
                + redact(OpenAiWire.snippet(response.body()))
                + (row.loglikelihood != null && !retryable && status != 401 && status != 403
                    ? " (a log-likelihood request: completions with echo: true, logprobs: "
                        + LoglikelihoodPrompt.LOGPROBS
                        + " and max_tokens: "
                        + LoglikelihoodPrompt.MAX_TOKENS
                        + "; a server that refuses echo with logprobs cannot score answer.mode"
                        + " loglikelihood: serve the model with vLLM or SGLang, or set"
                        + " answer.mode=generate; a prompt over the server's length: set the"
                        + " endpoint's max_length)"
                    : ""),
            status,
            retryable,
            retryAfter,
            null);
    throw retryable ? retrying(attempt, failure) : failure;
  }

  private AttemptFailure retrying(int attempt, AttemptFailure failure) {
    if (attempt < settings.maxAttempts()) {
      LOG.debug(
          "openai attempt {} of {} failed, retrying: {}",
          attempt,
          settings.maxAttempts(),
          failure.getMessage());
    }
    return failure;
  }

  /** Jittered exponential backoff, but never shorter than the server's Retry-After. */
  private static long wait(
      IntervalFunction backoff, int attempt, Either<Throwable, ChatResponse> outcome) {
    long wait = backoff.apply(attempt);
    if (outcome.isLeft() && unwrap(outcome.getLeft()) instanceof AttemptFailure f) {
      wait = Math.max(wait, f.retryAfterMillis());
    }
    return wait;
  }

  private void timeOut(Row row) {
    int attempts = row.attempts.get();
    row.result.completeExceptionally(
        new LlmCallException(
            "openai: row timed out after "
                + settings.rowTimeoutSeconds()
                + " s ("
                + attempts
                + " attempts)",
            attempts,
            row.lastStatus,
            new TimeoutException("row timeout")));
  }

  /** Runs once per row, however it finished: result, failure, timeout, cancellation or close. */
  private void finished(Row row) {
    live.remove(row);
    Future<?> timer = row.timer;
    if (timer != null) {
      timer.cancel(false);
    }
    if (row.started && !row.attemptRunning.get()) {
      returnPermit(row);
    }
    CompletableFuture<?> current = row.http;
    if (current != null && !current.isDone()) {
      current.cancel(true);
    }
  }

  private void returnPermit(Row row) {
    if (row.started && row.permitReturned.compareAndSet(false, true)) {
      permits.release();
    }
  }

  private LlmCallException callException(Row row, Throwable error) {
    Throwable cause = unwrap(error);
    int attempts = row.attempts.get();
    if (cause instanceof AttemptFailure f) {
      String message =
          f.retryable()
              ? "openai: gave up after " + attempts + " attempts: " + f.getMessage()
              : "openai: "
                  + f.getMessage()
                  + " (not retried; "
                  + attempts
                  + (attempts == 1 ? " attempt)" : " attempts)");
      return new LlmCallException(
          message, attempts, f.httpStatus(), f.getCause() != null ? f.getCause() : f);
    }
    return new LlmCallException(
        "openai: " + redact(describe(cause)), attempts, row.lastStatus, cause);
  }

  private LlmCallException closedException(Row row) {
    return new LlmCallException(
        "openai: the client was closed", row.attempts.get(), row.lastStatus, null);
  }

  private String redact(String text) {
    return apiKey == null || text == null ? text : text.replace(apiKey, "***");
  }

  private static Throwable unwrap(Throwable error) {
    Throwable cause = error;
    while ((cause instanceof CompletionException || cause instanceof ExecutionException)
        && cause.getCause() != null) {
      cause = cause.getCause();
    }
    return cause;
  }

  private static String describe(Throwable error) {
    return error.getMessage() == null
        ? error.getClass().getSimpleName()
        : error.getClass().getSimpleName() + ": " + error.getMessage();
  }

  private static LlmSettings validate(LlmSettings settings) {
    Objects.requireNonNull(settings, "settings");
    List<String> problems = settings.problems();
    require(
        problems.isEmpty(),
        problems.stream().map(p -> "llm." + p).collect(java.util.stream.Collectors.joining("; ")));
    return settings;
  }

  private static void require(boolean condition, String message) {
    if (!condition) {
      throw new IllegalArgumentException(message);
    }
  }

  private static URI endpoint(String baseUrl, String path) {
    require(
        baseUrl != null && !baseUrl.isBlank(),
        "llm.base_url: got nothing, expected the endpoint, e.g. http://host:8000/v1, for the openai backend");
    String base = baseUrl.strip();
    while (base.endsWith("/")) {
      base = base.substring(0, base.length() - 1);
    }
    try {
      URI uri = new URI(base + path);
      require(
          "http".equals(uri.getScheme()) || "https".equals(uri.getScheme()),
          "llm.base_url: got '" + baseUrl + "', expected an http or https URL");
      return uri;
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException("llm.base_url: got '" + baseUrl + "', expected a URL", e);
    }
  }

  /** The key from the named variable; null when none is named. Messages name the variable only. */
  private static String apiKey(String variable, Function<String, String> env) {
    if (variable == null || variable.isBlank()) {
      return null;
    }
    String value = env.apply(variable.strip());
    require(
        value != null && !value.isBlank(),
        "llm.api_key_env: names the environment variable "
            + variable.strip()
            + ", which is not set");
    return value.strip();
  }

  private static ThreadFactory daemonThreads(String prefix) {
    AtomicInteger count = new AtomicInteger();
    return runnable -> {
      Thread thread = new Thread(runnable, prefix + "-" + count.incrementAndGet());
      thread.setDaemon(true);
      return thread;
    };
  }

  /** One request through its attempts. */
  private static final class Row {
    final byte[] body;
    final LoglikelihoodPrompt loglikelihood;
    final URI endpoint;
    final CompletableFuture<ChatResponse> result = new CompletableFuture<>();
    final AtomicInteger attempts = new AtomicInteger();
    final AtomicBoolean attemptRunning = new AtomicBoolean();
    final AtomicBoolean permitReturned = new AtomicBoolean();
    volatile boolean started;
    volatile long startNanos;
    volatile int lastStatus;
    volatile Future<?> timer;
    volatile CompletableFuture<?> http;

    Row(byte[] body, LoglikelihoodPrompt loglikelihood, URI endpoint) {
      this.body = body;
      this.loglikelihood = loglikelihood;
      this.endpoint = endpoint;
    }
  }
}
