package dev.infuse.udfs.llm;

import dev.infuse.udfs.lm.CausalLm;
import dev.infuse.udfs.lm.GeneratedText;
import dev.infuse.udfs.lm.GenerationOptions;
import dev.infuse.udfs.lm.GenerationRequest;
import dev.infuse.udfs.lm.Generator;
import dev.infuse.udfs.lm.LmModelSpec;
import dev.infuse.udfs.model.ExecutorModels;
import dev.infuse.udfs.model.ModelSpec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Chat completion by a local {@link CausalLm} run through DJL, in the executor's own JVM: backend
 * {@code djl}, with {@code llm.model} the model directory. The model is loaded once per JVM ({@link
 * ExecutorModels}), on the first request, not when the client is built.
 *
 * <p>Batching: {@link #complete} only queues. One worker thread takes the first queued request,
 * waits up to a short linger for more (up to the batch size, {@code llm.max_concurrency} rows), and
 * generates them together with {@link Generator}; each future completes with its own result. Output
 * does not depend on the batch: every row samples from its own seed. If a batch fails, each of its
 * requests is retried alone, so an error fails only the requests it belongs to, with an {@link
 * LlmCallException} (attempts as tried, HTTP status 0).
 *
 * <p>Requests: messages are rendered by {@link PlainChatTemplate}, whose stop string is added to
 * the request's own; max tokens (0 or less: {@value #DEFAULT_MAX_TOKENS}), temperature, top-p, seed
 * (null is 0) and stop are honoured; {@code n} choices use seeds seed, seed + 1, … ; leading
 * whitespace of each text is dropped (the template ends at {@code Assistant:}). JSON mode and JSON
 * schemas are not enforced: there is no constrained decoding. The request's model name is ignored.
 *
 * <p>CPU executors: set {@code -Dai.djl.pytorch.num_threads} to the cores an executor may use.
 * libtorch's own intra-op threads otherwise fight the other tasks for the cores, and batching can
 * then be slower than one request at a time (measured on a shared 2-core machine: a 16-row batch
 * took 2x as long as 16 single rows with default threads, and 2.5 to 5x less time with one thread).
 */
public final class DjlClient implements LlmClient {
  static final int DEFAULT_MAX_TOKENS = 256;

  /** How long the worker waits for more requests to join a batch. */
  static final Duration DEFAULT_LINGER = Duration.ofMillis(5);

  private final ModelSpec<CausalLm> spec;
  private final int maxBatchRows;
  private final long lingerNanos;
  private final LinkedBlockingQueue<Pending> queue = new LinkedBlockingQueue<>();
  private final Thread worker;
  private final AtomicInteger batches = new AtomicInteger();
  private final AtomicInteger largestBatch = new AtomicInteger();
  private volatile boolean closed;

  /** The registry's constructor: {@code settings.model()} is the model directory. */
  public DjlClient(LlmSettings settings) {
    this(modelSpec(settings), Math.max(1, settings.maxConcurrency()), DEFAULT_LINGER);
  }

  /**
   * @param spec loads the model, once per JVM
   * @param maxBatchRows the most rows (requests times their {@code n}) generated together
   * @param linger how long to wait for a batch to fill once a request is queued
   */
  public DjlClient(ModelSpec<CausalLm> spec, int maxBatchRows, Duration linger) {
    this.spec = Objects.requireNonNull(spec, "spec");
    if (maxBatchRows < 1) {
      throw new IllegalArgumentException(
          "djl max batch rows: got " + maxBatchRows + ", expected 1 or more");
    }
    this.maxBatchRows = maxBatchRows;
    this.lingerNanos = linger.toNanos();
    this.worker = new Thread(this::serveUntilClosed, "infuse-djl-batcher");
    worker.setDaemon(true);
    worker.start();
  }

  @Override
  public String backend() {
    return LlmBackend.DJL.id();
  }

  @Override
  public CompletableFuture<ChatResponse> complete(ChatRequest request) {
    Objects.requireNonNull(request, "request");
    if (request.loglikelihood() != null) {
      return CompletableFuture.failedFuture(
          new LlmCallException(
              "djl: cannot serve a completions log-likelihood request: the djl backend scores"
                  + " options in the executor JVM (answer.mode loglikelihood with a model"
                  + " directory); only the openai backend sends them",
              0,
              0,
              null));
    }
    Pending pending;
    try {
      pending = new Pending(request);
    } catch (IllegalArgumentException e) {
      return CompletableFuture.failedFuture(
          new LlmCallException("djl: cannot serve the request: " + e.getMessage(), 0, 0, e));
    }
    queue.add(pending);
    if (closed && queue.remove(pending)) {
      pending.result.completeExceptionally(closedException());
    }
    return pending.result;
  }

  /** Batches generated so far. */
  public int batchesServed() {
    return batches.get();
  }

  /** The most requests one batch has held. */
  public int largestBatch() {
    return largestBatch.get();
  }

  /** Stops the worker after its current batch and fails the requests still queued. */
  @Override
  public void close() {
    closed = true;
    worker.interrupt();
    failQueued();
  }

  private void failQueued() {
    List<Pending> left = new ArrayList<>();
    queue.drainTo(left);
    left.forEach(p -> p.result.completeExceptionally(closedException()));
  }

  /**
   * The worker's loop; {@link #serve} never throws. However the loop ends (close, an interrupt),
   * every request still queued fails: a caller joining a future must never wait on a worker that is
   * gone.
   */
  private void serveUntilClosed() {
    try {
      while (!closed) {
        List<Pending> batch;
        try {
          batch = nextBatch();
        } catch (InterruptedException e) {
          return;
        }
        if (!batch.isEmpty()) {
          serve(batch);
        }
      }
    } finally {
      closed = true;
      failQueued();
    }
  }

  /** The first queued request and whatever joins it within the linger, up to the batch size. */
  private List<Pending> nextBatch() throws InterruptedException {
    List<Pending> batch = new ArrayList<>();
    Pending first = queue.poll(100, TimeUnit.MILLISECONDS);
    if (first == null) {
      return batch;
    }
    batch.add(first);
    int rows = first.rows.size();
    long deadline = System.nanoTime() + lingerNanos;
    while (rows < maxBatchRows) {
      Pending next = queue.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
      if (next == null) {
        break;
      }
      batch.add(next);
      rows += next.rows.size();
    }
    return batch;
  }

  private void serve(List<Pending> batch) {
    try {
      serveOrFail(batch);
    } catch (RuntimeException | Error e) {
      // Anything outside generation's own handling (a result that does not fit its request, a
      // heap that ran out): the batch's open requests fail with it, and the worker serves on.
      for (Pending pending : batch) {
        pending.result.completeExceptionally(
            new LlmCallException("djl: serving the batch failed: " + e, 1, 0, e));
      }
    }
  }

  private void serveOrFail(List<Pending> batch) {
    CausalLm model;
    try {
      model = ExecutorModels.get(spec);
    } catch (RuntimeException | Error e) {
      // An Error too (a native library that does not link, a heap too small for the model): the
      // requests fail with it, and the worker lives on for the next batch.
      for (Pending pending : batch) {
        pending.result.completeExceptionally(
            new LlmCallException(
                "djl: cannot load the model " + spec.cacheKey() + ": " + e.getMessage(), 1, 0, e));
      }
      return;
    }
    batches.incrementAndGet();
    largestBatch.accumulateAndGet(batch.size(), Math::max);
    try {
      generate(model, batch);
    } catch (RuntimeException | Error batchError) {
      if (batch.size() == 1) {
        batch
            .get(0)
            .result
            .completeExceptionally(
                new LlmCallException("djl: generation failed: " + batchError, 1, 0, batchError));
        return;
      }
      // Find the request that broke the batch: each one alone fails or succeeds on its own.
      for (Pending pending : batch) {
        try {
          generate(model, List.of(pending));
        } catch (RuntimeException | Error e) {
          pending.result.completeExceptionally(
              new LlmCallException("djl: generation failed: " + e, 2, 0, e));
        }
      }
    }
  }

  private void generate(CausalLm model, List<Pending> batch) {
    List<GenerationRequest> rows = new ArrayList<>();
    for (Pending pending : batch) {
      rows.addAll(pending.rows);
    }
    List<GeneratedText> out = new Generator(model, maxBatchRows).generate(rows);
    int next = 0;
    for (Pending pending : batch) {
      List<GeneratedText> own = out.subList(next, next + pending.rows.size());
      next += pending.rows.size();
      pending.complete(own);
    }
  }

  private static LlmCallException closedException() {
    return new LlmCallException(
        "djl: the client was closed before the request was served", 0, 0, null);
  }

  private static ModelSpec<CausalLm> modelSpec(LlmSettings settings) {
    String modelDir = settings.model();
    if (modelDir == null || modelDir.isBlank()) {
      throw new IllegalArgumentException(
          "llm.model: empty, expected the path of a model directory for backend djl");
    }
    return new LmModelSpec(modelDir, settings.device() == null ? "auto" : settings.device());
  }

  /** A queued request: its prompt expanded to one generation row per choice. */
  private static final class Pending {
    final List<GenerationRequest> rows = new ArrayList<>();
    final CompletableFuture<ChatResponse> result = new CompletableFuture<>();
    final long queuedNanos = System.nanoTime();

    Pending(ChatRequest request) {
      String prompt = PlainChatTemplate.render(request.messages());
      GenerationParams params = request.params();
      int maxTokens =
          params == null || params.maxTokens() <= 0 ? DEFAULT_MAX_TOKENS : params.maxTokens();
      double temperature = params == null ? 0 : params.temperature();
      double topP = params == null ? 1 : params.topP();
      long seed = params == null || params.seed() == null ? 0 : params.seed();
      int n = params == null ? 1 : Math.max(1, params.n());
      List<String> stop = new ArrayList<>(params == null ? List.of() : params.stop());
      stop.add(PlainChatTemplate.STOP);
      for (int i = 0; i < n; i++) {
        rows.add(
            new GenerationRequest(
                prompt, new GenerationOptions(maxTokens, temperature, topP, seed + i, stop)));
      }
    }

    void complete(List<GeneratedText> out) {
      List<String> texts = new ArrayList<>(out.size());
      int completionTokens = 0;
      for (GeneratedText text : out) {
        texts.add(text.text().stripLeading());
        completionTokens += text.completionTokens();
      }
      long latencyMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - queuedNanos);
      result.complete(
          new ChatResponse(
              texts,
              out.get(0).finishReason(),
              out.get(0).promptTokens(),
              completionTokens,
              1,
              latencyMillis));
    }
  }
}
