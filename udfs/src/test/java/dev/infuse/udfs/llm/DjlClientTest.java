package dev.infuse.udfs.llm;

import static dev.infuse.udfs.lm.CharTokenizer.id;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.infuse.udfs.lm.CausalLm;
import dev.infuse.udfs.lm.LookupLm;
import dev.infuse.udfs.model.ExecutorModels;
import dev.infuse.udfs.model.ModelSpec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class DjlClientTest {
  private final List<String> loadedKeys = new ArrayList<>();
  private final List<DjlClient> clients = new ArrayList<>();

  @AfterEach
  void closeEverything() {
    clients.forEach(DjlClient::close);
    loadedKeys.forEach(ExecutorModels::evict);
  }

  @Test
  void concurrentRequestsFormBatchesAndGetTheSameTextsAsSequentialOnes() {
    ModelSpec<CausalLm> spec = spec(() -> new LookupLm(256, true, LookupLm::historyHash));
    List<ChatRequest> requests = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      double temperature = i % 2 == 0 ? 0 : 0.8;
      requests.add(
          request(
              "question " + i,
              new GenerationParams(12, temperature, 0.9, 1, List.of(), 40L + i, false, null)));
    }
    // The batch closes when all 8 have joined; the long linger only matters on a loaded machine.
    DjlClient batching = client(spec, requests.size(), Duration.ofSeconds(30));
    DjlClient oneAtATime = client(spec, 1, Duration.ZERO);

    List<CompletableFuture<ChatResponse>> concurrent = new ArrayList<>();
    requests.forEach(r -> concurrent.add(batching.complete(r)));
    List<ChatResponse> sequential = new ArrayList<>();
    requests.forEach(r -> sequential.add(oneAtATime.complete(r).join()));

    for (int i = 0; i < requests.size(); i++) {
      ChatResponse together = concurrent.get(i).join();
      assertThat(together.texts()).isEqualTo(sequential.get(i).texts());
      assertThat(together.finishReason()).isEqualTo(sequential.get(i).finishReason());
      assertThat(together.completionTokens()).isEqualTo(sequential.get(i).completionTokens());
    }
    assertThat(batching.largestBatch()).isEqualTo(requests.size());
    assertThat(batching.batchesServed()).isEqualTo(1);
    assertThat(oneAtATime.largestBatch()).isEqualTo(1);
    assertThat(ExecutorModels.loadCount(spec.cacheKey())).isEqualTo(1);
  }

  @Test
  void theTemplatesStopStringEndsTheTurnAndMaxTokensEndsItWithLength() {
    DjlClient client =
        client(
            spec(() -> LookupLm.bigram(256, true, DjlClientTest::saysHiThenWritesTheUserTurn)),
            8,
            Duration.ZERO);

    ChatResponse stopped =
        client
            .complete(
                request("hello", new GenerationParams(50, 0, 1, 1, List.of(), null, false, null)))
            .join();
    ChatResponse cut =
        client
            .complete(
                request("hello", new GenerationParams(2, 0, 1, 1, List.of(), null, false, null)))
            .join();
    ChatResponse ownStop =
        client
            .complete(
                request(
                    "hello", new GenerationParams(50, 0, 1, 1, List.of("i"), null, false, null)))
            .join();

    // " hi\nUser:" is 9 tokens; the text loses its leading space and the stop string.
    assertThat(stopped.texts()).containsExactly("hi");
    assertThat(stopped.finishReason()).isEqualTo("stop");
    assertThat(stopped.completionTokens()).isEqualTo(9);
    assertThat(stopped.promptTokens()).isEqualTo("User: hello\nAssistant:".length());
    assertThat(cut.texts()).containsExactly("h");
    assertThat(cut.finishReason()).isEqualTo("length");
    assertThat(ownStop.texts()).containsExactly("h");
  }

  @Test
  void nChoicesUseSuccessiveSeeds() {
    DjlClient client =
        client(spec(() -> new LookupLm(256, true, LookupLm::historyHash)), 8, Duration.ZERO);

    ChatResponse two =
        client
            .complete(request("q", new GenerationParams(10, 1.0, 1, 2, List.of(), 5L, false, null)))
            .join();
    ChatResponse seedSix =
        client
            .complete(request("q", new GenerationParams(10, 1.0, 1, 1, List.of(), 6L, false, null)))
            .join();

    assertThat(two.texts()).hasSize(2);
    assertThat(two.texts().get(1)).isEqualTo(seedSix.text());
    assertThat(two.completionTokens()).isGreaterThanOrEqualTo(seedSix.completionTokens());
  }

  @Test
  void anErrorFailsOnlyTheRequestsItBelongsTo() {
    // The model breaks on any history holding 'Z', so only the request that mentions it fails.
    DjlClient client =
        client(
            spec(
                () ->
                    new LookupLm(
                        256,
                        true,
                        history -> {
                          if (history.contains(id('Z'))) {
                            throw new IllegalStateException("cannot read Z");
                          }
                          return LookupLm.historyHash(history);
                        })),
            16,
            Duration.ofMillis(300));
    GenerationParams params = new GenerationParams(6, 0, 1, 1, List.of(), 1L, false, null);

    CompletableFuture<ChatResponse> good = client.complete(request("fine", params));
    CompletableFuture<ChatResponse> broken = client.complete(request("Zed", params));
    CompletableFuture<ChatResponse> badRole =
        client.complete(
            new ChatRequest("m", List.of(new ChatMessage("robot", "hi")), params, Map.of()));
    CompletableFuture<ChatResponse> badTemperature =
        client.complete(
            request("x", new GenerationParams(6, -1, 1, 1, List.of(), 1L, false, null)));
    CompletableFuture<ChatResponse> alsoGood = client.complete(request("also fine", params));

    assertThat(good.join().text()).isNotEmpty();
    assertThat(alsoGood.join().text()).isNotEmpty();
    assertThatThrownBy(broken::join)
        .isInstanceOf(CompletionException.class)
        .cause()
        .isInstanceOf(LlmCallException.class)
        .hasMessageContaining("cannot read Z");
    assertThatThrownBy(badRole::join)
        .cause()
        .isInstanceOf(LlmCallException.class)
        .hasMessageContaining("message role: got robot, expected system, user or assistant");
    assertThatThrownBy(badTemperature::join)
        .cause()
        .isInstanceOf(LlmCallException.class)
        .hasMessageContaining("temperature: got -1.0");
  }

  @Test
  void aModelThatCannotLoadFailsTheRequestNamingIt() {
    ModelSpec<CausalLm> spec =
        spec(
            () -> {
              throw new IllegalArgumentException("config.json: missing");
            });
    DjlClient client = client(spec, 4, Duration.ZERO);

    assertThatThrownBy(() -> client.complete(request("hi", null)).join())
        .cause()
        .isInstanceOf(LlmCallException.class)
        .hasMessageContaining("djl: cannot load the model " + spec.cacheKey())
        .hasMessageContaining("config.json: missing");
  }

  @Test
  void aModelLoadThatThrowsAnErrorFailsEachRequestAndTheWorkerServesOn() {
    // An Error, not an exception: a native library that does not link, a heap too small. It once
    // killed the worker thread, and the demo's probe waited on its request forever.
    ModelSpec<CausalLm> spec =
        spec(
            () -> {
              throw new UnsatisfiedLinkError("libtorch_cpu.so: cannot open shared object file");
            });
    DjlClient client = client(spec, 4, Duration.ZERO);

    for (String user : List.of("first", "second")) {
      assertThatThrownBy(
              () -> client.complete(request(user, null)).orTimeout(30, TimeUnit.SECONDS).join())
          .as(user)
          .cause()
          .isInstanceOf(LlmCallException.class)
          .hasMessageContaining("djl: cannot load the model " + spec.cacheKey())
          .hasMessageContaining("libtorch_cpu.so");
    }
  }

  @Test
  void afterCloseRequestsFail() {
    DjlClient client =
        client(spec(() -> new LookupLm(64, true, LookupLm::historyHash)), 4, Duration.ZERO);
    client.close();

    assertThatThrownBy(() -> client.complete(request("hi", null)).join())
        .cause()
        .isInstanceOf(LlmCallException.class)
        .hasMessageContaining("closed");
  }

  @Test
  void theDjlBackendBuildsADjlClientThatNeedsAModelDirectory() {
    assertThat(LlmBackend.fromName("djl")).isEqualTo(LlmBackend.DJL);
    LlmSettings noModel = new LlmSettings(LlmBackend.DJL, null, " ", null, 4, 30, 60, 1, 100, 1000);
    assertThatThrownBy(() -> LlmClients.forSettings(noModel))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(
            "llm.model: empty, expected the path of a model directory for backend djl");
  }

  /** ':' ' ' h i '\n' U s e r ':' … : greets, then starts writing the user's next turn. */
  private static double[] saysHiThenWritesTheUserTurn(int current) {
    String cycle = ": hi\nUser:";
    int at = -1;
    for (int i = 0; i < cycle.length() - 1; i++) {
      if (id(cycle.charAt(i)) == current) {
        at = i;
        break;
      }
    }
    int next = at < 0 ? id('?') : id(cycle.charAt(at + 1));
    return LookupLm.distribution(new int[] {next}, new double[] {0.9});
  }

  private static ChatRequest request(String user, GenerationParams params) {
    return new ChatRequest("test", List.of(new ChatMessage("user", user)), params, Map.of());
  }

  private DjlClient client(ModelSpec<CausalLm> spec, int maxBatchRows, Duration linger) {
    DjlClient client = new DjlClient(spec, maxBatchRows, linger);
    clients.add(client);
    return client;
  }

  private ModelSpec<CausalLm> spec(Supplier<CausalLm> loader) {
    String key = "test-lookup-lm:" + UUID.randomUUID();
    loadedKeys.add(key);
    return new ModelSpec<>() {
      @Override
      public String cacheKey() {
        return key;
      }

      @Override
      public CausalLm load() {
        return loader.get();
      }
    };
  }
}
