package dev.infuse.udfs.llm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.infuse.udfs.llm.FakeOpenAiServer.Fault;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class OpenAiClientTest {
  private static final String KEY = "sk-test-5ecret-value";
  private static final Function<String, String> ENV =
      name -> name.equals("INFUSE_TEST_OPENAI_KEY") ? KEY : null;

  private final FakeOpenAiServer server = FakeOpenAiServer.start();
  private final List<OpenAiClient> clients = new ArrayList<>();

  @AfterEach
  void close() {
    clients.forEach(OpenAiClient::close);
    server.close();
  }

  @Test
  void answersWithTheCompletionAndItsUsage() throws Exception {
    OpenAiClient client = client(settings(4, 5, 10, 3));

    ChatResponse response = client.complete(request("hello there")).get(10, TimeUnit.SECONDS);

    assertThat(response.texts()).containsExactly("echo: hello there");
    assertThat(response.text()).isEqualTo("echo: hello there");
    assertThat(response.finishReason()).isEqualTo("stop");
    assertThat(response.promptTokens()).isEqualTo(4);
    assertThat(response.completionTokens()).isEqualTo(3);
    assertThat(response.attempts()).isEqualTo(1);
    assertThat(response.latencyMillis()).isBetween(0L, 10_000L);
    assertThat(client.backend()).isEqualTo("openai");
    assertThat(client.inFlight()).isZero();
  }

  @Test
  void sendsTheOpenAiWireFormat() throws Exception {
    OpenAiClient client = client(settings(4, 5, 10, 3));
    GenerationParams params =
        new GenerationParams(32, 0.5, 0.9, 2, List.of("END"), 42L, true, null);

    ChatResponse response = client.complete(request("hi", params)).get(10, TimeUnit.SECONDS);

    assertThat(response.texts()).containsExactly("echo: hi", "echo: hi");
    FakeOpenAiServer.Received received = server.lastReceived();
    assertThat(received.contentType()).isEqualTo("application/json");
    assertThat(received.authorization()).isNull();
    JsonNode body = received.json();
    assertThat(body.get("model").asText()).isEqualTo("test-model");
    assertThat(body.at("/messages/0/role").asText()).isEqualTo("system");
    assertThat(body.at("/messages/0/content").asText()).isEqualTo("be brief");
    assertThat(body.at("/messages/1/role").asText()).isEqualTo("user");
    assertThat(body.at("/messages/1/content").asText()).isEqualTo("hi");
    assertThat(body.get("max_tokens").asInt()).isEqualTo(32);
    assertThat(body.get("temperature").asDouble()).isEqualTo(0.5);
    assertThat(body.get("top_p").asDouble()).isEqualTo(0.9);
    assertThat(body.get("n").asInt()).isEqualTo(2);
    assertThat(body.at("/stop/0").asText()).isEqualTo("END");
    assertThat(body.get("seed").asLong()).isEqualTo(42L);
    assertThat(body.at("/response_format/type").asText()).isEqualTo("json_object");
  }

  @Test
  void sendsAJsonSchemaAndOmitsAnEmptyStopAndANullSeed() throws Exception {
    OpenAiClient client = client(settings(4, 5, 10, 3));
    String schema = "{\"type\":\"object\",\"properties\":{\"answer\":{\"type\":\"string\"}}}";
    GenerationParams params = new GenerationParams(16, 0.0, 1.0, 1, List.of(), null, true, schema);

    client.complete(request("hi", params)).get(10, TimeUnit.SECONDS);

    JsonNode body = server.lastReceived().json();
    assertThat(body.has("stop")).isFalse();
    assertThat(body.has("seed")).isFalse();
    assertThat(body.at("/response_format/type").asText()).isEqualTo("json_schema");
    assertThat(body.at("/response_format/json_schema/name").asText()).isEqualTo("output");
    assertThat(body.at("/response_format/json_schema/schema/properties/answer/type").asText())
        .isEqualTo("string");
  }

  @Test
  void anInvalidSchemaFailsWithoutARequest() {
    OpenAiClient client = client(settings(4, 5, 10, 3));
    GenerationParams params =
        new GenerationParams(16, 0.0, 1.0, 1, List.of(), null, false, "{not json");

    LlmCallException failure = failure(client.complete(request("hi", params)));

    assertThat(failure.getMessage()).contains("jsonSchema is not valid JSON");
    assertThat(failure.attempts()).isZero();
    assertThat(server.totalRequests()).isZero();
  }

  @Test
  void waitsAtLeastRetryAfterOnA429ThenSucceeds() throws Exception {
    server.faults().failFirst(1, Fault.RATE_LIMIT).retryAfter("1");
    OpenAiClient client = client(settings(4, 5, 10, 3));

    long start = System.nanoTime();
    ChatResponse response = client.complete(request("limited")).get(10, TimeUnit.SECONDS);
    long elapsedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);

    assertThat(response.attempts()).isEqualTo(2);
    assertThat(elapsedMillis).isGreaterThanOrEqualTo(950);
    assertThat(server.requestsFor("limited")).isEqualTo(2);
  }

  @Test
  void backoffGrowsExponentiallyAndIsJittered() throws Exception {
    // Six rows at once; each fails its first four attempts (HTTP 500, no Retry-After), then
    // succeeds. The server records when each attempt arrived.
    server
        .faults()
        .retryAfter(null)
        .failWhen(
            json -> server.requestsFor(FakeOpenAiServer.lastUserMessage(json)) <= 4,
            Fault.SERVER_ERROR);
    int initialBackoffMillis = 100;
    OpenAiClient client =
        client(
            new LlmSettings(
                LlmBackend.OPENAI,
                server.baseUrl(),
                "test-model",
                null,
                6,
                5,
                60,
                5,
                initialBackoffMillis,
                60_000));
    List<CompletableFuture<ChatResponse>> rows = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      rows.add(client.complete(request("backoff " + i)));
    }
    for (CompletableFuture<ChatResponse> row : rows) {
      assertThat(row.get(30, TimeUnit.SECONDS).attempts()).isEqualTo(5);
    }

    // The wait before retry n is initial * 2^(n-1), jittered by +-50%: never below half of it
    // (load only adds time), and at least once below 90% of it, which an unjittered wait plus any
    // overhead cannot be.
    List<Double> ratios = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      String message = "backoff " + i;
      List<Long> arrivals =
          server.received().stream()
              .filter(r -> message.equals(r.lastUserMessage()))
              .map(FakeOpenAiServer.Received::arrivedNanos)
              .sorted()
              .toList();
      assertThat(arrivals).hasSize(5);
      for (int retry = 1; retry <= 4; retry++) {
        double gapMillis = (arrivals.get(retry) - arrivals.get(retry - 1)) / 1e6;
        double nominal = initialBackoffMillis * Math.pow(2, retry - 1);
        assertThat(gapMillis)
            .as("%s, wait before retry %d", message, retry)
            .isGreaterThan(0.5 * nominal - 5);
        ratios.add(gapMillis / nominal);
      }
    }
    assertThat(ratios).as("waits / nominal waits").anySatisfy(r -> assertThat(r).isLessThan(0.9));
  }

  @Test
  void retriesServerErrorsThenSucceeds() throws Exception {
    server
        .faults()
        .failFirst(1, Fault.SERVER_ERROR)
        .failFirst(1, Fault.UNAVAILABLE)
        .retryAfter(null);
    OpenAiClient client = client(settings(4, 5, 10, 3));

    ChatResponse response = client.complete(request("flaky")).get(10, TimeUnit.SECONDS);

    assertThat(response.attempts()).isEqualTo(3);
    assertThat(response.text()).isEqualTo("echo: flaky");
    assertThat(server.requestsFor("flaky")).isEqualTo(3);
  }

  @Test
  void retriesAHungRequestAfterTheRequestTimeout() throws Exception {
    server.faults().failFirst(1, Fault.HANG);
    OpenAiClient client = client(settings(4, 1, 10, 3));

    long start = System.nanoTime();
    ChatResponse response = client.complete(request("slow")).get(10, TimeUnit.SECONDS);

    assertThat(response.attempts()).isEqualTo(2);
    assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start))
        .isGreaterThanOrEqualTo(950);
  }

  @Test
  void retriesTruncatedInvalidAndDroppedResponses() throws Exception {
    server
        .faults()
        .failFirst(1, Fault.TRUNCATED_BODY)
        .failFirst(1, Fault.INVALID_JSON)
        .failFirst(1, Fault.DROP_CONNECTION);
    OpenAiClient client = client(settings(4, 5, 10, 4));

    ChatResponse response = client.complete(request("broken")).get(10, TimeUnit.SECONDS);

    assertThat(response.attempts()).isEqualTo(4);
    assertThat(response.text()).isEqualTo("echo: broken");
  }

  @Test
  void doesNotRetryABadRequest() {
    server.faults().failFirst(1, Fault.BAD_REQUEST);
    OpenAiClient client = client(settings(4, 5, 10, 3));

    LlmCallException failure = failure(client.complete(request("bad")));

    assertThat(failure.attempts()).isEqualTo(1);
    assertThat(failure.httpStatus()).isEqualTo(400);
    assertThat(failure.getMessage()).contains("HTTP 400").contains("Injected bad request");
    assertThat(server.totalRequests()).isEqualTo(1);
  }

  @Test
  void aRequestTheServerRejectsFailsAtOnceQuotingItsError() {
    OpenAiClient client = client(settings(4, 5, 10, 3));
    ChatRequest request =
        new ChatRequest("test-model", List.of(new ChatMessage("tool", "x")), params(), Map.of());

    LlmCallException failure = failure(client.complete(request));

    assertThat(failure.attempts()).isEqualTo(1);
    assertThat(failure.getMessage()).contains("HTTP 400").contains("'role' must be one of");
  }

  @Test
  void givesUpAfterMaxAttempts() {
    server.setFaultRate(1.0, 1, Fault.SERVER_ERROR);
    OpenAiClient client = client(settings(4, 5, 10, 3));

    LlmCallException failure = failure(client.complete(request("doomed")));

    assertThat(failure.attempts()).isEqualTo(3);
    assertThat(failure.httpStatus()).isEqualTo(500);
    assertThat(failure.getMessage()).contains("gave up after 3 attempts").contains("HTTP 500");
    assertThat(server.requestsFor("doomed")).isEqualTo(3);
  }

  @Test
  void failsARowThatOutlivesTheRowTimeoutAndFreesItsPermit() throws Exception {
    server.faults().failFirst(1, Fault.HANG);
    OpenAiClient client = client(settings(1, 10, 1, 3));

    long start = System.nanoTime();
    LlmCallException failure = failure(client.complete(request("stuck")));
    long elapsedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);

    assertThat(failure.getMessage()).contains("row timed out after 1 s (1 attempts)");
    assertThat(failure.attempts()).isEqualTo(1);
    // Not before the row timeout, and well before the 10 s request timeout would have ended it.
    assertThat(elapsedMillis).isBetween(900L, 9_000L);
    // The permit is free again: the next row is sent and answered.
    assertThat(client.complete(request("next")).get(5, TimeUnit.SECONDS).text())
        .isEqualTo("echo: next");
    assertThat(client.inFlight()).isZero();
  }

  @Test
  void boundsTheRequestsInFlight() throws Exception {
    // The server holds the first requests until 4 are in flight at once, so "exactly 4" depends on
    // the client's bound alone, not on how fast a loaded machine sends them.
    server.setLatencyMillis(100).holdUntilInFlight(4, 10_000);
    OpenAiClient client = client(settings(4, 5, 30, 3));

    long start = System.nanoTime();
    List<CompletableFuture<ChatResponse>> futures = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      futures.add(client.complete(request("row " + i)));
    }
    assertThat(client.inFlight()).isLessThanOrEqualTo(4);
    assertThat(client.queued()).isGreaterThan(0);
    CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new)).get(20, TimeUnit.SECONDS);
    long elapsedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);

    assertThat(server.maxInFlight()).isEqualTo(4);
    // 40 calls of 100 ms, 4 at a time, cannot take less than 10 rounds.
    assertThat(elapsedMillis).isGreaterThanOrEqualTo(900L);
    assertThat(server.totalRequests()).isEqualTo(40);
    for (int i = 0; i < 40; i++) {
      assertThat(futures.get(i).get().text()).isEqualTo("echo: row " + i);
    }
    assertThat(client.inFlight()).isZero();
    assertThat(client.queued()).isZero();
  }

  @Test
  void takesThousandsOfFuturesAtOnce() throws Exception {
    OpenAiClient client = client(settings(16, 10, 60, 3));

    List<CompletableFuture<ChatResponse>> futures = new ArrayList<>();
    for (int i = 0; i < 2_000; i++) {
      futures.add(client.complete(request("many " + i)));
    }
    CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);

    assertThat(server.maxInFlight()).isLessThanOrEqualTo(16);
    assertThat(server.totalRequests()).isEqualTo(2_000);
    assertThat(futures.get(1_999).get().text()).isEqualTo("echo: many 1999");
  }

  @Test
  void sendsTheApiKeyAsABearerTokenFromTheNamedVariable() throws Exception {
    server.requireApiKey(KEY);
    OpenAiClient client = client(withKeyEnv(settings(4, 5, 10, 3), "INFUSE_TEST_OPENAI_KEY"));

    client.complete(request("secret")).get(10, TimeUnit.SECONDS);

    assertThat(server.lastReceived().authorization()).isEqualTo("Bearer " + KEY);
    assertThat(client.toString()).contains("INFUSE_TEST_OPENAI_KEY").doesNotContain(KEY);
    assertThat(RequestKeys.canonicalJson("openai", request("secret"))).doesNotContain(KEY);
  }

  @Test
  void neverPutsTheApiKeyInAFailure() {
    server.requireApiKey("sk-another-key");
    OpenAiClient client = client(withKeyEnv(settings(4, 5, 10, 3), "INFUSE_TEST_OPENAI_KEY"));

    LlmCallException failure = failure(client.complete(request("secret")));

    assertThat(failure.httpStatus()).isEqualTo(401);
    assertThat(failure.getMessage()).contains("HTTP 401").contains("***").doesNotContain(KEY);
    assertThat(server.lastReceived().authorization()).isEqualTo("Bearer " + KEY);
  }

  @Test
  void aNamedButMissingVariableFailsNamingTheVariable() {
    LlmSettings settings = withKeyEnv(settings(4, 5, 10, 3), "INFUSE_UNSET_KEY_VARIABLE");

    assertThatThrownBy(() -> new OpenAiClient(settings, ENV))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("INFUSE_UNSET_KEY_VARIABLE")
        .hasMessageContaining("not set");
  }

  @Test
  void rejectsUnusableSettings() {
    LlmSettings base = settings(4, 5, 10, 3);
    List<LlmSettings> invalid =
        List.of(
            new LlmSettings(LlmBackend.OPENAI, " ", "m", null, 4, 5, 10, 3, 10, 100),
            new LlmSettings(LlmBackend.OPENAI, "ftp://host/v1", "m", null, 4, 5, 10, 3, 10, 100),
            new LlmSettings(LlmBackend.OPENAI, base.baseUrl(), "m", null, 0, 5, 10, 3, 10, 100),
            new LlmSettings(LlmBackend.OPENAI, base.baseUrl(), "m", null, 4, 0, 10, 3, 10, 100),
            new LlmSettings(LlmBackend.OPENAI, base.baseUrl(), "m", null, 4, 5, 10, 0, 10, 100),
            new LlmSettings(LlmBackend.OPENAI, base.baseUrl(), "m", null, 4, 5, 10, 3, 100, 10));
    List<String> keys =
        List.of(
            "llm.base_url",
            "llm.base_url",
            "llm.max_concurrency",
            "llm.request_timeout_seconds",
            "llm.max_attempts",
            "llm.max_backoff_millis");
    for (int i = 0; i < invalid.size(); i++) {
      LlmSettings settings = invalid.get(i);
      // Messages name the key as the YAML spells it.
      assertThatThrownBy(() -> new OpenAiClient(settings, ENV))
          .as(settings.toString())
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith(keys.get(i) + ": got ");
    }
  }

  @Test
  void closingFailsTheRowsNotYetFinished() {
    server.setLatencyMillis(2_000);
    OpenAiClient client = client(settings(1, 5, 10, 3));
    CompletableFuture<ChatResponse> running = client.complete(request("running"));
    CompletableFuture<ChatResponse> waiting = client.complete(request("waiting"));

    client.close();

    assertThat(failure(running).getMessage()).contains("closed");
    assertThat(failure(waiting).getMessage()).contains("closed");
    assertThat(failure(client.complete(request("after"))).getMessage()).contains("closed");
  }

  private static LlmCallException failure(CompletableFuture<ChatResponse> future) {
    try {
      ChatResponse response = future.get(15, TimeUnit.SECONDS);
      throw new AssertionError("expected a failure, got " + response);
    } catch (ExecutionException e) {
      assertThat(e.getCause()).isInstanceOf(LlmCallException.class);
      return (LlmCallException) e.getCause();
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  private OpenAiClient client(LlmSettings settings) {
    OpenAiClient client = new OpenAiClient(settings, ENV);
    clients.add(client);
    return client;
  }

  private LlmSettings settings(
      int maxConcurrency, int requestTimeoutSeconds, int rowTimeoutSeconds, int maxAttempts) {
    return new LlmSettings(
        LlmBackend.OPENAI,
        server.baseUrl(),
        "test-model",
        null,
        maxConcurrency,
        requestTimeoutSeconds,
        rowTimeoutSeconds,
        maxAttempts,
        10,
        100);
  }

  private static LlmSettings withKeyEnv(LlmSettings s, String variable) {
    return new LlmSettings(
        s.backend(),
        s.baseUrl(),
        s.model(),
        variable,
        s.maxConcurrency(),
        s.requestTimeoutSeconds(),
        s.rowTimeoutSeconds(),
        s.maxAttempts(),
        s.initialBackoffMillis(),
        s.maxBackoffMillis());
  }

  private static GenerationParams params() {
    return new GenerationParams(64, 0.0, 1.0, 1, List.of(), 7L, false, null);
  }

  private static ChatRequest request(String user) {
    return request(user, params());
  }

  private static ChatRequest request(String user, GenerationParams params) {
    return new ChatRequest(
        "test-model",
        List.of(new ChatMessage("system", "be brief"), new ChatMessage("user", user)),
        params,
        Map.of("task", "t"));
  }
}
