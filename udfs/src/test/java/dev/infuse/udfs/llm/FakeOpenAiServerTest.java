package dev.infuse.udfs.llm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.infuse.udfs.llm.FakeOpenAiServer.Fault;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class FakeOpenAiServerTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String VALID =
      "{\"model\":\"m\",\"messages\":[{\"role\":\"system\",\"content\":\"be brief\"},"
          + "{\"role\":\"user\",\"content\":\"hello there world\"}],\"max_tokens\":16,\"temperature\":0,\"seed\":3}";

  private final FakeOpenAiServer server = FakeOpenAiServer.start();
  private final HttpClient http =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

  @AfterEach
  void close() {
    server.close();
  }

  @Test
  void answersAValidRequestWithAnEchoAndUsage() throws Exception {
    HttpResponse<String> response = post(VALID);

    assertThat(response.statusCode()).isEqualTo(200);
    JsonNode body = JSON.readTree(response.body());
    assertThat(body.at("/choices/0/message/content").asText()).isEqualTo("echo: hello there world");
    assertThat(body.at("/choices/0/finish_reason").asText()).isEqualTo("stop");
    assertThat(body.at("/usage/prompt_tokens").asInt()).isEqualTo(5);
    assertThat(body.at("/usage/completion_tokens").asInt()).isEqualTo(4);
    assertThat(body.get("model").asText()).isEqualTo("m");
  }

  @Test
  void honoursNAndMaxTokensAndAProgrammedResponder() throws Exception {
    server.setResponder(request -> "one two three four five");
    String body = VALID.replace("\"max_tokens\":16", "\"max_tokens\":3,\"n\":2");

    JsonNode answer = JSON.readTree(post(body).body());

    assertThat(answer.get("choices")).hasSize(2);
    assertThat(answer.at("/choices/1/message/content").asText()).isEqualTo("one two three");
    assertThat(answer.at("/choices/0/finish_reason").asText()).isEqualTo("length");
    assertThat(answer.at("/usage/completion_tokens").asInt()).isEqualTo(6);
  }

  @Test
  void rejectsMalformedRequestsWithAnOpenAiStyleError() throws Exception {
    List<String> invalid =
        List.of(
            "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}",
            "{\"model\":\"\",\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}",
            "{\"model\":\"m\",\"messages\":[]}",
            "{\"model\":\"m\",\"messages\":[{\"role\":\"robot\",\"content\":\"x\"}]}",
            "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":42}]}",
            "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],\"max_tokens\":\"16\"}",
            "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],\"temperature\":\"hot\"}",
            "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],\"seed\":1.5}",
            "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],\"maxTokens\":16}",
            "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],\"response_format\":{\"type\":\"xml\"}}",
            "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]} trailing",
            "not json at all");
    for (String body : invalid) {
      HttpResponse<String> response = post(body);
      assertThat(response.statusCode()).as(body).isEqualTo(400);
      JsonNode error = JSON.readTree(response.body()).get("error");
      assertThat(error.get("type").asText()).as(body).isEqualTo("invalid_request_error");
      assertThat(error.get("message").asText()).as(body).isNotBlank();
    }
    assertThat(server.totalRequests()).isEqualTo(invalid.size());
    assertThat(server.requestsByBodyHash()).isEmpty();
  }

  @Test
  void rejectsTheWrongContentTypeMethodAndPath() throws Exception {
    HttpResponse<String> text =
        http.send(
            HttpRequest.newBuilder(URI.create(server.baseUrl() + "/chat/completions"))
                .header("Content-Type", "text/plain")
                .POST(HttpRequest.BodyPublishers.ofString(VALID))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    HttpResponse<String> get =
        http.send(
            HttpRequest.newBuilder(URI.create(server.baseUrl() + "/chat/completions"))
                .GET()
                .build(),
            HttpResponse.BodyHandlers.ofString());
    HttpResponse<String> path =
        http.send(
            HttpRequest.newBuilder(URI.create(server.baseUrl() + "/embeddings"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(VALID))
                .build(),
            HttpResponse.BodyHandlers.ofString());

    assertThat(text.statusCode()).isEqualTo(400);
    assertThat(get.statusCode()).isEqualTo(405);
    assertThat(path.statusCode()).isEqualTo(404);
  }

  @Test
  void requiresTheBearerTokenWhenAsked() throws Exception {
    server.requireApiKey("sk-test");

    assertThat(post(VALID).statusCode()).isEqualTo(401);
    HttpResponse<String> authorised =
        http.send(
            request(VALID).header("Authorization", "Bearer sk-test").build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(authorised.statusCode()).isEqualTo(200);
    assertThat(server.lastReceived().authorization()).isEqualTo("Bearer sk-test");
  }

  @Test
  void countsRequestsByUserMessageAndBody() throws Exception {
    post(VALID);
    post(VALID);
    post(VALID.replace("hello there world", "other"));

    assertThat(server.totalRequests()).isEqualTo(3);
    assertThat(server.requestsFor("hello there world")).isEqualTo(2);
    assertThat(server.requestsFor("other")).isEqualTo(1);
    assertThat(server.requestsFor("never sent")).isZero();
    assertThat(server.requestsByBodyHash()).containsEntry(FakeOpenAiServer.bodyHash(VALID), 2);
    assertThat(server.received()).hasSize(3);
    assertThat(server.lastReceived().lastUserMessage()).isEqualTo("other");

    server.resetCounters();
    assertThat(server.totalRequests()).isZero();
    assertThat(server.received()).isEmpty();
  }

  @Test
  void failFirstInjectsFaultsInOrderThenAnswers() throws Exception {
    server
        .faults()
        .failFirst(1, Fault.RATE_LIMIT)
        .failFirst(1, Fault.UNAVAILABLE)
        .failFirst(1, Fault.SERVER_ERROR)
        .failFirst(1, Fault.BAD_REQUEST)
        .failFirst(1, Fault.INVALID_JSON);

    HttpResponse<String> limited = post(VALID);
    HttpResponse<String> unavailable = post(VALID);
    List<Integer> statuses = List.of(post(VALID).statusCode(), post(VALID).statusCode());
    HttpResponse<String> invalidJson = post(VALID);

    assertThat(limited.statusCode()).isEqualTo(429);
    assertThat(limited.headers().firstValue("Retry-After")).hasValue("1");
    assertThat(unavailable.statusCode()).isEqualTo(503);
    assertThat(statuses).containsExactly(500, 400);
    assertThat(invalidJson.statusCode()).isEqualTo(200);
    assertThatThrownBy(() -> JSON.readTree(invalidJson.body())).isInstanceOf(IOException.class);
    assertThat(post(VALID).statusCode()).isEqualTo(200);
    assertThat(server.faults().pending()).isZero();
  }

  @Test
  void truncatedBodiesAndDroppedConnectionsFailOnTheClient() {
    server.faults().failFirst(1, Fault.TRUNCATED_BODY).failFirst(1, Fault.DROP_CONNECTION);

    assertThatThrownBy(() -> post(VALID)).isInstanceOf(IOException.class);
    assertThatThrownBy(() -> post(VALID)).isInstanceOf(IOException.class);
  }

  @Test
  void aHungRequestNeverAnswers() {
    server.faults().failFirst(1, Fault.HANG);
    HttpRequest request = request(VALID).timeout(Duration.ofMillis(300)).build();

    assertThatThrownBy(() -> http.send(request, HttpResponse.BodyHandlers.ofString()))
        .isInstanceOf(HttpTimeoutException.class);
  }

  @Test
  void aSeededFaultRateIsReproducible() throws Exception {
    List<Integer> first = statuses(0.5, 11);
    List<Integer> second = statuses(0.5, 11);

    assertThat(first).isEqualTo(second).contains(200, 500);
  }

  @Test
  void failWhenTargetsOneUserMessage() throws Exception {
    server.faults().failForUserMessage("other", Fault.SERVER_ERROR);

    assertThat(post(VALID).statusCode()).isEqualTo(200);
    assertThat(post(VALID.replace("hello there world", "other")).statusCode()).isEqualTo(500);
    assertThat(post(VALID.replace("hello there world", "other")).statusCode()).isEqualTo(500);
  }

  @Test
  void serves256ConcurrentConnections() throws Exception {
    // Held until all 256 are in flight together: a count, not a race against a latency.
    server.holdUntilInFlight(256, 30_000);
    LlmSettings settings =
        new LlmSettings(LlmBackend.OPENAI, server.baseUrl(), "m", null, 256, 10, 30, 1, 10, 100);
    try (OpenAiClient client = new OpenAiClient(settings)) {
      List<CompletableFuture<ChatResponse>> futures = new ArrayList<>();
      for (int i = 0; i < 256; i++) {
        futures.add(
            client.complete(
                new ChatRequest(
                    "m",
                    List.of(new ChatMessage("user", "c" + i)),
                    new GenerationParams(8, 0, 1, 1, List.of(), null, false, null),
                    Map.of())));
      }
      CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
    }

    assertThat(server.maxInFlight()).isEqualTo(256);
    assertThat(server.requestsByUserMessage()).hasSize(256);
  }

  private List<Integer> statuses(double rate, long seed) throws Exception {
    server.setFaultRate(rate, seed, Fault.SERVER_ERROR);
    List<Integer> statuses = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      statuses.add(post(VALID).statusCode());
    }
    return statuses;
  }

  @Test
  void completionsEchoThePromptWithDeterministicLogprobsAsVllmDoes() throws Exception {
    String tokens =
        "{\"model\":\"m\",\"prompt\":[5,9,7],\"max_tokens\":1,\"logprobs\":1,\"echo\":true,"
            + "\"temperature\":0}";
    JsonNode answer = JSON.readTree(postCompletion(tokens).body());

    JsonNode logprobs = answer.at("/choices/0/logprobs");
    // Three prompt tokens, the first without a log-probability, then one generated token.
    assertThat(logprobs.get("token_logprobs")).hasSize(4);
    assertThat(logprobs.get("token_logprobs").get(0).isNull()).isTrue();
    assertThat(logprobs.get("top_logprobs").get(0).isNull()).isTrue();
    assertThat(logprobs.get("token_logprobs").get(2).asDouble())
        .isEqualTo(FakeOpenAiServer.promptLogprob(9, 7));
    assertThat(logprobs.at("/top_logprobs/2/token_id:7").asDouble())
        .isEqualTo(FakeOpenAiServer.promptLogprob(9, 7));
    assertThat(answer.at("/usage/prompt_tokens").asInt()).isEqualTo(3);
    assertThat(answer.at("/usage/completion_tokens").asInt()).isEqualTo(1);
    assertThat(server.completionRequests()).isEqualTo(1);

    // Text needs a tokenizer; without echo only the generated token has log-probabilities.
    String text = "{\"model\":\"m\",\"prompt\":\"a b\",\"max_tokens\":1,\"logprobs\":1}";
    assertThat(postCompletion(text).statusCode()).isEqualTo(400);
    server.setCompletionsTokenizer(prompt -> new long[] {1, 2, 3});
    JsonNode noEcho = JSON.readTree(postCompletion(text).body());
    assertThat(noEcho.at("/choices/0/logprobs/token_logprobs")).hasSize(1);
    // A server that ignores echo gives the same answer to an echo request.
    server.withoutPromptLogprobs();
    assertThat(
            JSON.readTree(postCompletion(tokens).body()).at("/choices/0/logprobs/token_logprobs"))
        .hasSize(1);
    assertThat(
            postCompletion(tokens.replace("\"echo\":true", "\"echo\":true,\"best_of\":2"))
                .statusCode())
        .isEqualTo(400);
  }

  private HttpResponse<String> postCompletion(String body) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create(server.baseUrl() + "/completions"))
            .timeout(Duration.ofSeconds(5))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private HttpResponse<String> post(String body) throws Exception {
    return http.send(request(body).build(), HttpResponse.BodyHandlers.ofString());
  }

  private HttpRequest.Builder request(String body) {
    return HttpRequest.newBuilder(URI.create(server.baseUrl() + "/chat/completions"))
        .timeout(Duration.ofSeconds(5))
        .header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(body));
  }
}
