package dev.infuse.udfs.llm;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.infuse.udfs.common.Keys;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * A real OpenAI-compatible chat-completions server on 127.0.0.1, for tests that must exercise the
 * HTTP path (timeouts, dropped connections, retries) rather than a mock. It validates requests as
 * strictly as OpenAI does (400 with an OpenAI-style error), answers deterministically, and injects
 * faults on demand. It writes nothing to stdout.
 *
 * <p>It also serves {@value #COMPLETIONS_PATH} as vLLM does for lm-evaluation-harness's {@code
 * local-completions} model: a prompt of token ids (or of text, tokenized by the function {@link
 * #setCompletionsTokenizer} gives) is echoed with a log-probability for every token but the first
 * ({@link #promptLogprob}, a hash of the token and the one before it) and its {@code top_logprobs}
 * (the token's own and the best alternative's, {@link #alternativeLogprob}), then at most one
 * generated token. {@link #withoutPromptLogprobs} makes it a server that ignores {@code echo}.
 *
 * <pre>{@code
 * try (FakeOpenAiServer server = FakeOpenAiServer.start()) {
 *   server.faults().failFirst(2, FakeOpenAiServer.Fault.RATE_LIMIT);
 *   server.setLatencyMillis(50);
 *   ... point llm.baseUrl at server.baseUrl() ...
 *   assertThat(server.requestsFor("the prompt")).isEqualTo(3);
 * }
 * }</pre>
 */
public final class FakeOpenAiServer implements AutoCloseable {
  /** The path the server answers; {@link #baseUrl()} ends in {@code /v1}. */
  public static final String PATH = "/v1/chat/completions";

  /** The completions path: log-likelihood requests with echoed prompt log-probabilities. */
  public static final String COMPLETIONS_PATH = "/v1/completions";

  private static final Set<String> COMPLETION_FIELDS =
      Set.of(
          "model",
          "prompt",
          "max_tokens",
          "temperature",
          "top_p",
          "n",
          "stop",
          "seed",
          "logprobs",
          "echo",
          "stream",
          "user");

  private static final Set<String> ROLES = Set.of("system", "user", "assistant");
  private static final Set<String> FIELDS =
      Set.of(
          "model",
          "messages",
          "max_tokens",
          "max_completion_tokens",
          "temperature",
          "top_p",
          "n",
          "stop",
          "seed",
          "response_format",
          "stream",
          "user",
          "presence_penalty",
          "frequency_penalty");
  private static final ObjectMapper JSON =
      new ObjectMapper().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

  /** What a faulty request gets instead of its answer. */
  public enum Fault {
    /** 429 with {@code Retry-After} (see {@link FaultPlan#retryAfter}). */
    RATE_LIMIT,
    /** 500. */
    SERVER_ERROR,
    /** 503 with {@code Retry-After}. */
    UNAVAILABLE,
    /** 400, as for an invalid request: not worth retrying. */
    BAD_REQUEST,
    /** No answer at all until the server closes; the client's request timeout must end it. */
    HANG,
    /** 200 with a Content-Length larger than the body sent, then the connection closes. */
    TRUNCATED_BODY,
    /** 200 with a body that is not JSON. */
    INVALID_JSON,
    /** The connection closes before any response. */
    DROP_CONNECTION
  }

  /**
   * One request as received, valid or not.
   *
   * @param json the parsed body, null when it is not JSON
   * @param arrivedNanos {@link System#nanoTime()} when its body had been read
   */
  public record Received(
      String method,
      String path,
      String authorization,
      String contentType,
      String body,
      JsonNode json,
      long arrivedNanos) {
    /** The content of the last user message, or null when there is none. */
    public String lastUserMessage() {
      return FakeOpenAiServer.lastUserMessage(json);
    }
  }

  /**
   * Which requests fail, and how. Rules are checked in order: {@code failWhen}, {@code failFirst},
   * rate.
   */
  public static final class FaultPlan {
    private final ArrayDeque<Fault> first = new ArrayDeque<>();
    private final List<Map.Entry<Predicate<JsonNode>, Fault>> when = new CopyOnWriteArrayList<>();
    private Random random;
    private double rate;
    private List<Fault> rateFaults;
    private volatile String retryAfter = "1";

    private FaultPlan() {}

    /** The next {@code count} valid requests (after any queued before) get {@code fault}. */
    public synchronized FaultPlan failFirst(int count, Fault fault) {
      Objects.requireNonNull(fault, "fault");
      for (int i = 0; i < count; i++) {
        first.add(fault);
      }
      return this;
    }

    /**
     * Every valid request whose body matches gets {@code fault}, for as long as the server runs.
     */
    public FaultPlan failWhen(Predicate<JsonNode> request, Fault fault) {
      when.add(
          Map.entry(
              Objects.requireNonNull(request, "request"), Objects.requireNonNull(fault, "fault")));
      return this;
    }

    /** Every valid request whose last user message equals {@code content} gets {@code fault}. */
    public FaultPlan failForUserMessage(String content, Fault fault) {
      return failWhen(json -> content.equals(lastUserMessage(json)), fault);
    }

    /**
     * Each other valid request gets a fault with probability {@code rate}, drawn from a seeded RNG:
     * one of {@code faults}, each as likely as the others.
     */
    public synchronized FaultPlan rate(double rate, long seed, Fault... faults) {
      if (rate < 0 || rate > 1) {
        throw new IllegalArgumentException("rate must be in [0, 1], got " + rate);
      }
      if (faults.length == 0) {
        throw new IllegalArgumentException("rate needs at least one fault");
      }
      this.rate = rate;
      this.random = new Random(seed);
      this.rateFaults = List.of(faults);
      return this;
    }

    /**
     * The {@code Retry-After} value sent with 429 and 503: seconds or an HTTP-date; null sends
     * none.
     */
    public FaultPlan retryAfter(String value) {
      this.retryAfter = value;
      return this;
    }

    /** No more faults. */
    public synchronized FaultPlan clear() {
      first.clear();
      when.clear();
      rate = 0;
      random = null;
      rateFaults = null;
      return this;
    }

    /** Faults queued by {@link #failFirst} and not yet used. */
    public synchronized int pending() {
      return first.size();
    }

    private Fault next(JsonNode request) {
      for (Map.Entry<Predicate<JsonNode>, Fault> rule : when) {
        if (rule.getKey().test(request)) {
          return rule.getValue();
        }
      }
      synchronized (this) {
        Fault queued = first.poll();
        if (queued != null) {
          return queued;
        }
        if (random != null && random.nextDouble() < rate) {
          return rateFaults.get(random.nextInt(rateFaults.size()));
        }
      }
      return null;
    }
  }

  static {
    // The JDK server writes headers and body separately; with Nagle's algorithm on, the body then
    // waits for the client's delayed ACK, some 40 ms a request. Read once, when the server first
    // loads.
    if (System.getProperty("sun.net.httpserver.nodelay") == null) {
      System.setProperty("sun.net.httpserver.nodelay", "true");
    }
  }

  private final HttpServer server;
  private final ExecutorService threads;
  private final FaultPlan faults = new FaultPlan();
  private final CountDownLatch closing = new CountDownLatch(1);
  private final AtomicInteger total = new AtomicInteger();
  private final AtomicInteger inFlight = new AtomicInteger();
  private final AtomicInteger maxInFlight = new AtomicInteger();
  private final AtomicInteger completionIds = new AtomicInteger();
  private final Map<String, AtomicInteger> byUserMessage = new ConcurrentHashMap<>();
  private final Map<String, AtomicInteger> byBodyHash = new ConcurrentHashMap<>();
  private final List<Received> received = Collections.synchronizedList(new ArrayList<>());
  private final AtomicLong latencyMillis = new AtomicLong();
  private final Object arrivals = new Object();
  private volatile int holdUntilInFlight;
  private volatile long holdMaxMillis;
  private volatile boolean holdReleased;
  private volatile Function<JsonNode, String> responder = FakeOpenAiServer::echo;
  private volatile String apiKey;
  private volatile Function<String, long[]> completionsTokenizer;
  private volatile boolean promptLogprobs = true;
  private volatile java.util.function.LongFunction<double[]> nextTokenLogprobs;
  private final AtomicInteger completionRequests = new AtomicInteger();

  /** Starts a server on an ephemeral port of 127.0.0.1. */
  public FakeOpenAiServer() {
    AtomicInteger count = new AtomicInteger();
    // One thread per open exchange, without a cap: hung requests hold theirs until close(), and a
    // test may hang hundreds while 256 or more others are answered.
    threads =
        Executors.newCachedThreadPool(
            runnable -> {
              Thread thread = new Thread(runnable, "fake-openai-" + count.incrementAndGet());
              thread.setDaemon(true);
              return thread;
            });
    try {
      server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 1024);
    } catch (IOException e) {
      threads.shutdownNow();
      throw new UncheckedIOException("cannot start the fake OpenAI server", e);
    }
    server.setExecutor(threads);
    server.createContext("/", this::handle);
    server.start();
  }

  /** Starts a server on an ephemeral port of 127.0.0.1. */
  public static FakeOpenAiServer start() {
    return new FakeOpenAiServer();
  }

  /** {@code http://127.0.0.1:<port>/v1}, the value for {@code llm.baseUrl}. */
  public String baseUrl() {
    return "http://127.0.0.1:" + port() + "/v1";
  }

  public int port() {
    return server.getAddress().getPort();
  }

  /** The fault plan, to program per test. */
  public FaultPlan faults() {
    return faults;
  }

  /** Shorthand for {@code faults().rate(rate, seed, faults)}. */
  public FakeOpenAiServer setFaultRate(double rate, long seed, Fault... faults) {
    this.faults.rate(rate, seed, faults);
    return this;
  }

  /** Every valid request waits this long before its answer (or its fault). */
  public FakeOpenAiServer setLatencyMillis(long millis) {
    latencyMillis.set(millis);
    return this;
  }

  /**
   * Holds every valid request until {@code count} are in flight at once, then answers them all and
   * holds no more: a concurrency bound tested by counts, not by timing. If {@code count} never
   * arrive, the held requests go on after {@code maxWaitMillis}, and {@link #maxInFlight()} shows
   * how many did.
   */
  public FakeOpenAiServer holdUntilInFlight(int count, long maxWaitMillis) {
    holdMaxMillis = maxWaitMillis;
    holdReleased = false;
    holdUntilInFlight = count;
    return this;
  }

  /**
   * What each choice says, given the request body. The default is {@code "echo: "} and the first
   * 200 characters of the last user message.
   */
  public FakeOpenAiServer setResponder(Function<JsonNode, String> responder) {
    this.responder = Objects.requireNonNull(responder, "responder");
    return this;
  }

  /**
   * How text prompts of {@value #COMPLETIONS_PATH} become token ids, special tokens included (what
   * the served model's tokenizer does); without one, only token-id prompts are served.
   */
  public FakeOpenAiServer setCompletionsTokenizer(Function<String, long[]> tokenize) {
    this.completionsTokenizer = Objects.requireNonNull(tokenize, "tokenize");
    return this;
  }

  /**
   * From now on, completions carry log-probabilities for generated tokens only, as a server that
   * ignores {@code echo} with {@code logprobs} (TGI, OpenAI's current models) answers.
   */
  public FakeOpenAiServer withoutPromptLogprobs() {
    this.promptLogprobs = false;
    return this;
  }

  /**
   * Makes the completions model a bigram model: after token {@code previous}, the log-probabilities
   * over the vocabulary are {@code logprobsAfter.apply(previous)} (a token's own, and the top one's
   * for {@code top_logprobs}), so that a test can serve the very model it also scores in the JVM.
   * Without one, the hash model of {@link #promptLogprob} answers.
   */
  public FakeOpenAiServer setNextTokenLogprobs(
      java.util.function.LongFunction<double[]> logprobsAfter) {
    this.nextTokenLogprobs = Objects.requireNonNull(logprobsAfter, "logprobsAfter");
    return this;
  }

  /** Valid requests to {@value #COMPLETIONS_PATH}, faulted ones included. */
  public int completionRequests() {
    return completionRequests.get();
  }

  /**
   * The log-probability the fake model gives {@code token} after {@code previous}: in [-5, -1), a
   * hash of the pair, so any client can recompute what a prompt scores.
   */
  public static double promptLogprob(long previous, long token) {
    return -1.0 - Math.floorMod(mix(previous * 1_000_003L + token), 400L) / 100.0;
  }

  /**
   * The log-probability of the best token other than the prompt's after {@code previous}: in [-3.5,
   * -0.5). A prompt token is greedy when its own is at least this.
   */
  public static double alternativeLogprob(long previous) {
    return -0.5 - Math.floorMod(mix(previous ^ 0x5DEECE66DL), 300L) / 100.0;
  }

  /** The token the fake model prefers after {@code previous}: what it generates. */
  public static long alternativeToken(long previous) {
    return Math.floorMod(mix(previous + 17), 30_000L);
  }

  private static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  /** Requires {@code Authorization: Bearer <key>} (401 otherwise); null requires nothing. */
  public FakeOpenAiServer requireApiKey(String key) {
    this.apiKey = key;
    return this;
  }

  /** Every request received, valid or not. */
  public int totalRequests() {
    return total.get();
  }

  /** Valid requests whose last user message is {@code content}, faulted ones included. */
  public int requestsFor(String content) {
    AtomicInteger count = byUserMessage.get(content);
    return count == null ? 0 : count.get();
  }

  /** Valid requests by last user message, faulted ones included. */
  public Map<String, Integer> requestsByUserMessage() {
    return snapshot(byUserMessage);
  }

  /** Valid requests by the SHA-256 (hex) of their exact body, faulted ones included. */
  public Map<String, Integer> requestsByBodyHash() {
    return snapshot(byBodyHash);
  }

  /** The SHA-256 (hex) of a body, as {@link #requestsByBodyHash} counts it. */
  public static String bodyHash(String body) {
    return HexFormat.of().formatHex(Keys.sha256(body.getBytes(StandardCharsets.UTF_8)));
  }

  /** The most requests seen between arrival and the start of their answer at once. */
  public int maxInFlight() {
    return maxInFlight.get();
  }

  /** Requests between arrival and the start of their answer now (hung ones not counted). */
  public int inFlight() {
    return inFlight.get();
  }

  /** Every request received, in arrival order. */
  public List<Received> received() {
    synchronized (received) {
      return List.copyOf(received);
    }
  }

  /** The last request received; fails when there was none. */
  public Received lastReceived() {
    synchronized (received) {
      if (received.isEmpty()) {
        throw new IllegalStateException("no request received");
      }
      return received.get(received.size() - 1);
    }
  }

  /** Forgets the counts and the requests received; keeps faults, latency and responder. */
  public void resetCounters() {
    total.set(0);
    maxInFlight.set(inFlight.get());
    byUserMessage.clear();
    byBodyHash.clear();
    received.clear();
  }

  /** Stops the server; hung requests end with their connection closed. */
  @Override
  public void close() {
    closing.countDown();
    server.stop(0);
    threads.shutdownNow();
  }

  private void handle(HttpExchange exchange) throws IOException {
    Call call = new Call(exchange);
    try {
      total.incrementAndGet();
      byte[] raw = exchange.getRequestBody().readAllBytes();
      String body = new String(raw, StandardCharsets.UTF_8);
      JsonNode json = parse(body);
      String method = exchange.getRequestMethod();
      String path = exchange.getRequestURI().getPath();
      String authorization = exchange.getRequestHeaders().getFirst("Authorization");
      String contentType = exchange.getRequestHeaders().getFirst("Content-Type");
      received.add(
          new Received(method, path, authorization, contentType, body, json, System.nanoTime()));
      boolean completions = COMPLETIONS_PATH.equals(path);
      if (!PATH.equals(path) && !completions) {
        call.error(404, "invalid_request_error", "Unknown path " + path, null);
        return;
      }
      if (!"POST".equals(method)) {
        call.error(
            405, "invalid_request_error", "Method " + method + " is not allowed; use POST", null);
        return;
      }
      String key = apiKey;
      if (key != null && !("Bearer " + key).equals(authorization)) {
        // Echoes what it got, as some servers do, so tests can check that clients redact it.
        call.error(
            401,
            "invalid_request_error",
            authorization == null
                ? "You didn't provide an API key."
                : "Incorrect API key provided: " + authorization,
            "invalid_api_key");
        return;
      }
      String invalid =
          completions
              ? validateCompletion(contentType, json, completionsTokenizer != null)
              : validate(contentType, json);
      if (invalid != null) {
        call.error(400, "invalid_request_error", invalid, null);
        return;
      }
      if (completions) {
        completionRequests.incrementAndGet();
      }
      String lastUser = lastUserMessage(json);
      if (lastUser != null) {
        byUserMessage.computeIfAbsent(lastUser, k -> new AtomicInteger()).incrementAndGet();
      }
      byBodyHash.computeIfAbsent(bodyHash(body), k -> new AtomicInteger()).incrementAndGet();
      Fault fault = faults.next(json);
      awaitHeldRequests();
      long latency = latencyMillis.get();
      if (latency > 0) {
        Thread.sleep(latency);
      }
      if (fault == null) {
        call.send(
            200,
            Map.of(),
            JSON.writeValueAsBytes(completions ? textCompletion(json) : completion(json)));
      } else {
        inject(call, fault, json);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (IOException | RuntimeException e) {
      // The client went away, or a responder failed: the connection closes without an answer.
    } finally {
      call.leave();
      exchange.close();
    }
  }

  private void inject(Call call, Fault fault, JsonNode json)
      throws IOException, InterruptedException {
    String retryAfter = faults.retryAfter;
    Map<String, String> retryHeader =
        retryAfter == null ? Map.of() : Map.of("Retry-After", retryAfter);
    switch (fault) {
      case RATE_LIMIT ->
          call.error(
              429, "rate_limit_error", "Rate limit reached; try again later.", null, retryHeader);
      case SERVER_ERROR ->
          call.error(500, "server_error", "The server had an error processing your request.", null);
      case UNAVAILABLE ->
          call.error(503, "server_error", "The engine is currently overloaded.", null, retryHeader);
      case BAD_REQUEST -> call.error(400, "invalid_request_error", "Injected bad request.", null);
      case HANG -> {
        call.leave();
        closing.await(10, TimeUnit.MINUTES);
      }
      case TRUNCATED_BODY -> call.sendTruncated(JSON.writeValueAsBytes(completion(json)));
      case INVALID_JSON ->
          call.send(200, Map.of(), "{\"choices\": [ not json".getBytes(StandardCharsets.UTF_8));
      case DROP_CONNECTION -> call.leave();
    }
  }

  private ObjectNode completion(JsonNode request) {
    String text = responder.apply(request);
    int maxTokens =
        request
            .path("max_tokens")
            .asInt(request.path("max_completion_tokens").asInt(Integer.MAX_VALUE));
    String finishReason = "stop";
    List<String> tokens = words(text);
    if (tokens.size() > maxTokens) {
      text = String.join(" ", tokens.subList(0, maxTokens));
      tokens = tokens.subList(0, maxTokens);
      finishReason = "length";
    }
    int n = request.path("n").asInt(1);
    int promptTokens = 0;
    for (JsonNode message : request.get("messages")) {
      promptTokens += words(message.get("content").asText()).size();
    }
    ObjectNode response =
        JSON.createObjectNode()
            .put("id", "chatcmpl-fake-" + completionIds.incrementAndGet())
            .put("object", "chat.completion")
            .put("created", 0)
            .put("model", request.get("model").asText());
    ArrayNode choices = response.putArray("choices");
    for (int i = 0; i < n; i++) {
      ObjectNode choice = choices.addObject().put("index", i);
      choice.putObject("message").put("role", "assistant").put("content", text);
      choice.put("finish_reason", finishReason);
    }
    response
        .putObject("usage")
        .put("prompt_tokens", promptTokens)
        .put("completion_tokens", tokens.size() * n)
        .put("total_tokens", promptTokens + tokens.size() * n);
    return response;
  }

  /**
   * A completions answer: the prompt's tokens (token ids, or the text through the completions
   * tokenizer) echoed with their log-probabilities when asked, then {@code min(max_tokens, 1)}
   * generated tokens, vLLM's shape: the first prompt token has null for both.
   */
  private ObjectNode textCompletion(JsonNode request) {
    JsonNode prompt = request.get("prompt");
    long[] ids;
    if (prompt.isTextual()) {
      ids = completionsTokenizer.apply(prompt.asText());
    } else {
      ids = new long[prompt.size()];
      for (int i = 0; i < ids.length; i++) {
        ids[i] = prompt.get(i).asLong();
      }
    }
    boolean echo = request.path("echo").asBoolean(false);
    int logprobs = request.path("logprobs").asInt(-1);
    int generated = Math.min(1, request.path("max_tokens").asInt(16));
    long last = ids.length == 0 ? 0 : ids[ids.length - 1];
    ArrayNode tokens = JSON.createArrayNode();
    ArrayNode tokenLogprobs = JSON.createArrayNode();
    ArrayNode tops = JSON.createArrayNode();
    StringBuilder text = new StringBuilder();
    if (echo) {
      text.append(prompt.isTextual() ? prompt.asText() : "");
      if (promptLogprobs) {
        for (int i = 0; i < ids.length; i++) {
          tokens.add("token_id:" + ids[i]);
          if (i == 0) {
            tokenLogprobs.addNull();
            tops.addNull();
            continue;
          }
          java.util.function.LongFunction<double[]> bigram = nextTokenLogprobs;
          ObjectNode top = tops.addObject();
          double own;
          if (bigram == null) {
            own = promptLogprob(ids[i - 1], ids[i]);
            top.put("token_id:" + alternativeToken(ids[i - 1]), alternativeLogprob(ids[i - 1]));
          } else {
            double[] after = bigram.apply(ids[i - 1]);
            own = after[Math.toIntExact(ids[i])];
            int best = 0;
            for (int v = 1; v < after.length; v++) {
              best = after[v] > after[best] ? v : best;
            }
            top.put("token_id:" + best, after[best]);
          }
          tokenLogprobs.add(own);
          top.put("token_id:" + ids[i], own);
        }
      }
    }
    for (int g = 0; g < generated; g++) {
      long next = alternativeToken(last);
      tokens.add("token_id:" + next);
      tokenLogprobs.add(alternativeLogprob(last));
      tops.addObject().put("token_id:" + next, alternativeLogprob(last));
      text.append(" t").append(next);
    }
    ObjectNode response =
        JSON.createObjectNode()
            .put("id", "cmpl-fake-" + completionIds.incrementAndGet())
            .put("object", "text_completion")
            .put("created", 0)
            .put("model", request.get("model").asText());
    ObjectNode choice = response.putArray("choices").addObject().put("index", 0);
    choice.put("text", text.toString());
    if (logprobs >= 0) {
      ObjectNode lp = choice.putObject("logprobs");
      lp.set("tokens", tokens);
      lp.set("token_logprobs", tokenLogprobs);
      lp.set("top_logprobs", tops);
    } else {
      choice.putNull("logprobs");
    }
    choice.put("finish_reason", "length");
    response
        .putObject("usage")
        .put("prompt_tokens", ids.length)
        .put("completion_tokens", generated)
        .put("total_tokens", ids.length + generated);
    return response;
  }

  /** Why a completions request is invalid, as vLLM words it where it can; null when valid. */
  static String validateCompletion(String contentType, JsonNode json, boolean tokenizesText) {
    if (contentType == null
        || !contentType
            .toLowerCase(Locale.ROOT)
            .split(";", 2)[0]
            .strip()
            .equals("application/json")) {
      return "Content-Type must be application/json, got " + contentType;
    }
    if (json == null || !json.isObject()) {
      return "We could not parse the JSON body of your request.";
    }
    for (Iterator<String> names = json.fieldNames(); names.hasNext(); ) {
      String name = names.next();
      if (!COMPLETION_FIELDS.contains(name)) {
        return "Unrecognized request argument supplied: " + name;
      }
    }
    JsonNode model = json.get("model");
    if (model == null || !model.isTextual() || model.asText().isBlank()) {
      return "'model' must be a non-empty string";
    }
    JsonNode prompt = json.get("prompt");
    if (prompt == null
        || !(prompt.isTextual() || prompt.isArray())
        || (prompt.isTextual() ? prompt.asText().isEmpty() : prompt.isEmpty())) {
      return "'prompt' must be a non-empty string or array of token ids";
    }
    if (prompt.isArray()) {
      for (JsonNode id : prompt) {
        if (!id.isIntegralNumber() || id.asLong() < 0) {
          return "'prompt' as an array must hold token ids (the fake server takes one prompt)";
        }
      }
    } else if (!tokenizesText) {
      return "the fake server has no tokenizer for text prompts; send token ids";
    }
    String problem =
        firstNonNull(
            integer(json, "max_tokens", 0, Long.MAX_VALUE),
            integer(json, "n", 1, 1),
            integer(json, "logprobs", 0, 20),
            integer(json, "seed", Long.MIN_VALUE, Long.MAX_VALUE),
            number(json, "temperature", 0, 2),
            number(json, "top_p", 0, 1),
            stop(json.get("stop")));
    if (problem != null) {
      return problem;
    }
    JsonNode echo = json.get("echo");
    if (echo != null && !echo.isNull() && !echo.isBoolean()) {
      return "'echo' must be a boolean";
    }
    JsonNode stream = json.get("stream");
    return stream != null && !stream.isNull() && !(stream.isBoolean() && !stream.booleanValue())
        ? "'stream' must be false: the fake server does not stream"
        : null;
  }

  private static String echo(JsonNode request) {
    String last = lastUserMessage(request);
    String content = last == null ? "" : last;
    return "echo: " + (content.length() <= 200 ? content : content.substring(0, 200));
  }

  /** Why the request is invalid, in OpenAI's words where it has them; null when it is valid. */
  static String validate(String contentType, JsonNode json) {
    if (contentType == null
        || !contentType
            .toLowerCase(Locale.ROOT)
            .split(";", 2)[0]
            .strip()
            .equals("application/json")) {
      return "Content-Type must be application/json, got " + contentType;
    }
    if (json == null) {
      return "We could not parse the JSON body of your request.";
    }
    if (!json.isObject()) {
      return "The request body must be a JSON object.";
    }
    for (Iterator<String> names = json.fieldNames(); names.hasNext(); ) {
      String name = names.next();
      if (!FIELDS.contains(name)) {
        return "Unrecognized request argument supplied: " + name;
      }
    }
    JsonNode model = json.get("model");
    if (model == null || !model.isTextual() || model.asText().isBlank()) {
      return "'model' must be a non-empty string";
    }
    JsonNode messages = json.get("messages");
    if (messages == null || !messages.isArray() || messages.isEmpty()) {
      return "'messages' must be a non-empty array";
    }
    for (int i = 0; i < messages.size(); i++) {
      String problem = validateMessage(messages.get(i));
      if (problem != null) {
        return "messages[" + i + "]: " + problem;
      }
    }
    String problem =
        firstNonNull(
            integer(json, "max_tokens", 1, Long.MAX_VALUE),
            integer(json, "max_completion_tokens", 1, Long.MAX_VALUE),
            integer(json, "n", 1, 128),
            integer(json, "seed", Long.MIN_VALUE, Long.MAX_VALUE),
            number(json, "temperature", 0, 2),
            number(json, "top_p", 0, 1),
            number(json, "presence_penalty", -2, 2),
            number(json, "frequency_penalty", -2, 2),
            stop(json.get("stop")),
            responseFormat(json.get("response_format")));
    if (problem != null) {
      return problem;
    }
    JsonNode stream = json.get("stream");
    if (stream != null && !stream.isNull() && !(stream.isBoolean() && !stream.booleanValue())) {
      return "'stream' must be false: the fake server does not stream";
    }
    JsonNode user = json.get("user");
    return user != null && !user.isNull() && !user.isTextual() ? "'user' must be a string" : null;
  }

  private static String validateMessage(JsonNode message) {
    if (!message.isObject()) {
      return "must be an object";
    }
    for (Iterator<String> names = message.fieldNames(); names.hasNext(); ) {
      String name = names.next();
      if (!Set.of("role", "content", "name").contains(name)) {
        return "unrecognized field '" + name + "'";
      }
    }
    JsonNode role = message.get("role");
    if (role == null || !role.isTextual() || !ROLES.contains(role.asText())) {
      return "'role' must be one of system, user, assistant; got " + role;
    }
    JsonNode content = message.get("content");
    if (content == null || !content.isTextual()) {
      return "'content' must be a string";
    }
    JsonNode name = message.get("name");
    return name != null && !name.isTextual() ? "'name' must be a string" : null;
  }

  private static String integer(JsonNode json, String field, long min, long max) {
    JsonNode value = json.get(field);
    if (value == null || value.isNull()) {
      return null;
    }
    if (!value.isIntegralNumber() || !value.canConvertToLong()) {
      return "'" + field + "' must be an integer, got " + value;
    }
    long number = value.asLong();
    return number < min || number > max
        ? "'" + field + "' must be in [" + min + ", " + max + "], got " + number
        : null;
  }

  private static String number(JsonNode json, String field, double min, double max) {
    JsonNode value = json.get(field);
    if (value == null || value.isNull()) {
      return null;
    }
    if (!value.isNumber()) {
      return "'" + field + "' must be a number, got " + value;
    }
    double number = value.asDouble();
    return number < min || number > max
        ? "'" + field + "' must be in [" + min + ", " + max + "], got " + number
        : null;
  }

  private static String stop(JsonNode stop) {
    if (stop == null || stop.isNull() || stop.isTextual()) {
      return null;
    }
    if (!stop.isArray() || stop.size() > 4) {
      return "'stop' must be a string or an array of at most 4 strings";
    }
    for (JsonNode item : stop) {
      if (!item.isTextual()) {
        return "'stop' must be a string or an array of at most 4 strings";
      }
    }
    return null;
  }

  private static String responseFormat(JsonNode format) {
    if (format == null || format.isNull()) {
      return null;
    }
    String type = format.path("type").asText("");
    if (!format.isObject() || !Set.of("text", "json_object", "json_schema").contains(type)) {
      return "'response_format.type' must be one of text, json_object, json_schema";
    }
    if (type.equals("json_schema")) {
      JsonNode schema = format.path("json_schema");
      if (!schema.path("name").isTextual() || !schema.path("schema").isObject()) {
        return "'response_format.json_schema' needs a string 'name' and an object 'schema'";
      }
    }
    return null;
  }

  private static String firstNonNull(String... problems) {
    return Arrays.stream(problems).filter(Objects::nonNull).findFirst().orElse(null);
  }

  static String lastUserMessage(JsonNode json) {
    if (json == null || !json.path("messages").isArray()) {
      return null;
    }
    String last = null;
    for (JsonNode message : json.get("messages")) {
      if ("user".equals(message.path("role").asText()) && message.path("content").isTextual()) {
        last = message.get("content").asText();
      }
    }
    return last;
  }

  private static List<String> words(String text) {
    String trimmed = text.strip();
    return trimmed.isEmpty() ? List.of() : Arrays.asList(trimmed.split("\\s+"));
  }

  private static JsonNode parse(String body) {
    try {
      JsonNode node = JSON.readTree(body);
      return node == null || node.isMissingNode() ? null : node;
    } catch (JsonProcessingException e) {
      return null;
    }
  }

  private static Map<String, Integer> snapshot(Map<String, AtomicInteger> counts) {
    Map<String, Integer> copy = new TreeMap<>();
    counts.forEach((key, count) -> copy.put(key, count.get()));
    return Collections.unmodifiableMap(copy);
  }

  private void awaitHeldRequests() throws InterruptedException {
    if (holdUntilInFlight <= 0) {
      return;
    }
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(holdMaxMillis);
    synchronized (arrivals) {
      while (!holdReleased && inFlight.get() < holdUntilInFlight) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          break;
        }
        arrivals.wait(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
      }
      holdReleased = true;
      arrivals.notifyAll();
    }
  }

  /** One exchange; it counts as in flight from arrival until its answer starts. */
  private final class Call {
    private final HttpExchange exchange;
    private boolean counted = true;

    Call(HttpExchange exchange) {
      this.exchange = exchange;
      int now = inFlight.incrementAndGet();
      maxInFlight.accumulateAndGet(now, Math::max);
      synchronized (arrivals) {
        arrivals.notifyAll();
      }
    }

    void leave() {
      if (counted) {
        counted = false;
        inFlight.decrementAndGet();
      }
    }

    void error(int status, String type, String message, String code) throws IOException {
      error(status, type, message, code, Map.of());
    }

    void error(int status, String type, String message, String code, Map<String, String> headers)
        throws IOException {
      ObjectNode body = JSON.createObjectNode();
      body.putObject("error")
          .put("message", message)
          .put("type", type)
          .putNull("param")
          .put("code", code);
      send(status, headers, JSON.writeValueAsBytes(body));
    }

    void send(int status, Map<String, String> headers, byte[] body) throws IOException {
      leave();
      exchange.getResponseHeaders().set("Content-Type", "application/json");
      headers.forEach((name, value) -> exchange.getResponseHeaders().set(name, value));
      exchange.sendResponseHeaders(status, body.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(body);
      }
    }

    /**
     * Promises all of {@code body} and sends half; closing the exchange then drops the connection.
     */
    void sendTruncated(byte[] body) throws IOException {
      leave();
      exchange.getResponseHeaders().set("Content-Type", "application/json");
      exchange.sendResponseHeaders(200, body.length);
      OutputStream out = exchange.getResponseBody();
      out.write(body, 0, body.length / 2);
      out.flush();
    }
  }
}
