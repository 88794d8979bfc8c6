package dev.infuse.udfs.llm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.infuse.udfs.lm.CharTokenizer;
import dev.infuse.udfs.lm.LogLikelihoodEncoder;
import dev.infuse.udfs.lm.LogLikelihoodScorer;
import dev.infuse.udfs.lm.LookupLm;
import dev.infuse.udfs.lm.MultipleChoiceScore;
import dev.infuse.udfs.text.HuggingFaceTextTokenizer;
import dev.infuse.udfs.text.TextTokenizer;
import dev.infuse.udfs.text.Tokenizers;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Log-likelihood over the completions API against the loopback server, checked against a reference
 * this test computes from the served model's definition and the tokenizer alone: the option picked
 * ({@code acc}, {@code acc_norm}), each option's log-likelihood and {@code is_greedy}, with token
 * and text prompts, BOS, truncation, a server without prompt log-probabilities, and the in-JVM
 * scorer on the same model.
 */
class CompletionsLoglikelihoodTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String CONTEXT = "Question: Which city is the capital of France?\nAnswer:";
  private static final List<String> CHOICES =
      List.of("Paris", "Oslo", "Lisbon in Portugal", "Bern");

  /** Infuse's default tokenizer (MiniLM's WordPiece): what the served model "uses" here. */
  private static final TextTokenizer TOKENIZER = Tokenizers.defaultTokenizer();

  private final FakeOpenAiServer server = FakeOpenAiServer.start();
  private final List<OpenAiClient> clients = new ArrayList<>();

  @AfterEach
  void close() {
    clients.forEach(OpenAiClient::close);
    server.close();
  }

  /** The reference: one option scored from the fake model's definition, nothing of the client. */
  private record Reference(double logprob, boolean greedy, long[] prompt, int contextTokens) {}

  private static Reference reference(String context, String choice, Long bos) {
    long[] ctx = withBos(ids(context), bos);
    long[] whole = withBos(ids(context + " " + choice), bos);
    assertThat(Arrays.copyOf(whole, ctx.length)).as("the context's tokens lead").isEqualTo(ctx);
    double sum = 0;
    boolean greedy = true;
    for (int j = ctx.length; j < whole.length; j++) {
      double logprob = FakeOpenAiServer.promptLogprob(whole[j - 1], whole[j]);
      sum += logprob;
      greedy &= logprob >= FakeOpenAiServer.alternativeLogprob(whole[j - 1]);
    }
    return new Reference(sum, greedy, whole, ctx.length);
  }

  private static int argmax(double[] values) {
    int best = 0;
    for (int i = 1; i < values.length; i++) {
      best = values[i] > values[best] ? i : best;
    }
    return best;
  }

  @Test
  void tokenPromptsPickTheOptionTheReferencePicks() throws Exception {
    CompletionsLoglikelihood completions = completions(null, true, null);
    List<LoglikelihoodResult> results =
        ask(client(3), completions.multipleChoice(CONTEXT, CHOICES, " ", Map.of()));

    double[] expected = new double[CHOICES.size()];
    double[] perChar = new double[CHOICES.size()];
    for (int i = 0; i < CHOICES.size(); i++) {
      Reference ref = reference(CONTEXT, CHOICES.get(i), null);
      expected[i] = ref.logprob();
      perChar[i] = ref.logprob() / CHOICES.get(i).length();
      assertThat(results.get(i).logprob()).isCloseTo(ref.logprob(), within(1e-9));
      assertThat(results.get(i).greedy()).as("option %d greedy", i).isEqualTo(ref.greedy());
      assertThat(results.get(i).tokenLogprobs()).hasSize(ref.prompt().length - ref.contextTokens());
      assertThat(sentPrompts()).as("option %d's prompt as sent", i).contains(ref.prompt());
    }
    // What went over the wire is lm-evaluation-harness's local-completions request.
    assertThat(server.received()).hasSize(CHOICES.size());
    for (FakeOpenAiServer.Received received : server.received()) {
      JsonNode sent = received.json();
      assertThat(received.path()).isEqualTo(FakeOpenAiServer.COMPLETIONS_PATH);
      assertThat(sent.get("model").asText()).isEqualTo("served");
      assertThat(sent.get("echo").asBoolean()).isTrue();
      assertThat(sent.get("logprobs").asInt()).isEqualTo(1);
      assertThat(sent.get("max_tokens").asInt()).isEqualTo(1);
      assertThat(sent.get("temperature").asDouble()).isZero();
    }
    MultipleChoiceScore score = CompletionsLoglikelihood.score(results, CHOICES);
    assertThat(score.acc()).isEqualTo(argmax(expected));
    assertThat(score.accNorm()).isEqualTo(argmax(perChar));
    // The fixture is one where the two rules disagree, so both are really checked.
    assertThat(argmax(expected)).isNotEqualTo(argmax(perChar));
  }

  @Test
  void textPromptsScoreTheSameAndTheServerAddsItsOwnBos() throws Exception {
    List<LoglikelihoodResult> asTokens =
        ask(
            client(3),
            completions(null, true, null).multipleChoice(CONTEXT, CHOICES, " ", Map.of()));

    server.setCompletionsTokenizer(text -> ids(text));
    List<LoglikelihoodResult> asText =
        ask(
            client(3),
            completions(null, false, null).multipleChoice(CONTEXT, CHOICES, " ", Map.of()));
    assertThat(
            server.received().stream()
                .filter(r -> r.json().get("prompt").isTextual())
                .map(r -> r.json().get("prompt").asText()))
        .containsExactlyInAnyOrderElementsOf(CHOICES.stream().map(c -> CONTEXT + " " + c).toList());
    assertThat(asText).isEqualTo(asTokens);

    // A server whose tokenizer puts BOS first (Llama's) and a client that counts it (answer.add_bos
    // auto resolves it) agree on where the continuation starts.
    long bos = 101;
    server.setCompletionsTokenizer(text -> withBos(ids(text), bos));
    List<LoglikelihoodResult> withBos =
        ask(
            client(3),
            completions((int) bos, false, null).multipleChoice(CONTEXT, CHOICES, " ", Map.of()));
    for (int i = 0; i < CHOICES.size(); i++) {
      assertThat(withBos.get(i).logprob())
          .isCloseTo(reference(CONTEXT, CHOICES.get(i), bos).logprob(), within(1e-9));
    }

    // A client that leaves BOS out counts one token fewer than the server: refused, not retried,
    // naming what to change.
    server.resetCounters();
    CompletableFuture<ChatResponse> miscounted =
        client(3)
            .complete(
                completions(null, false, null)
                    .request(
                        0,
                        new dev.infuse.udfs.lm.LogLikelihoodRequest(CONTEXT, " Paris"),
                        Map.of()));
    assertThatThrownBy(miscounted::join)
        .isInstanceOf(CompletionException.class)
        .hasMessageContaining("the server counted")
        .hasMessageContaining("answer.add_bos")
        .hasMessageContaining("tokenizer");
    assertThat(server.totalRequests()).as("not retried").isEqualTo(1);
  }

  @Test
  void aServerWithoutPromptLogprobsFailsOnceNamingTheSettingToChange() {
    server.withoutPromptLogprobs();
    OpenAiClient client = client(3);
    CompletableFuture<ChatResponse> answer =
        client.complete(
            completions(null, true, null).multipleChoice(CONTEXT, CHOICES, " ", Map.of()).get(0));

    assertThatThrownBy(answer::join)
        .isInstanceOf(CompletionException.class)
        .cause()
        .isInstanceOf(LlmCallException.class)
        .hasMessageContaining(LoglikelihoodPrompt.NO_PROMPT_LOGPROBS)
        .hasMessageContaining("echo: true")
        .hasMessageContaining("answer.mode=generate")
        .hasMessageContaining("not retried");
    assertThat(server.completionRequests()).as("a retry cannot help").isEqualTo(1);
  }

  @Test
  void maxLengthKeepsTheLastTokensAsTheHarnessDoes() throws Exception {
    Reference full = reference(CONTEXT, CHOICES.get(2), null);
    int maxLength = full.prompt().length - 3;
    ChatRequest request =
        completions(null, true, maxLength)
            .request(
                0,
                new dev.infuse.udfs.lm.LogLikelihoodRequest(CONTEXT, " " + CHOICES.get(2)),
                Map.of());
    LoglikelihoodPrompt prompt = request.loglikelihood();

    // max_length - 1 tokens (one is generated), the continuation whole, the context cut in front.
    assertThat(prompt.tokens()).hasSize(maxLength - 1);
    assertThat(prompt.continuationTokens()).isEqualTo(full.prompt().length - full.contextTokens());
    assertThat(prompt.tokens().get(maxLength - 2))
        .isEqualTo(full.prompt()[full.prompt().length - 1]);
    // The fake model is a bigram model, so the continuation scores as it did uncut.
    LoglikelihoodResult result = ask(client(3), List.of(request)).get(0);
    assertThat(result.logprob()).isCloseTo(full.logprob(), within(1e-9));

    assertThatThrownBy(
            () ->
                completions(null, true, 4)
                    .request(
                        0,
                        new dev.infuse.udfs.lm.LogLikelihoodRequest(CONTEXT, " " + CHOICES.get(2)),
                        Map.of()))
        .hasMessageContaining("max_length 4");
    assertThatThrownBy(
            () ->
                completions(null, false, maxLength)
                    .request(
                        0,
                        new dev.infuse.udfs.lm.LogLikelihoodRequest(CONTEXT, " " + CHOICES.get(2)),
                        Map.of()))
        .hasMessageContaining("tokenized_requests: true");
  }

  /**
   * The same bigram model in the JVM (the djl path's scorer) and behind the server (the completions
   * path): the same option log-likelihoods, greedy flags, acc and acc_norm.
   */
  @Test
  void theCompletionsPathAgreesWithTheInJvmScorerOnTheSameModel() throws Exception {
    int vocab = CharTokenizer.VOCAB_SIZE;
    java.util.function.IntFunction<double[]> next =
        current -> {
          SplittableRandom random = new SplittableRandom(current * 7919L + 1);
          double[] scores = new double[vocab];
          double max = Double.NEGATIVE_INFINITY;
          for (int v = 0; v < vocab; v++) {
            scores[v] = random.nextDouble() * 6;
            max = Math.max(max, scores[v]);
          }
          double sum = 0;
          for (double score : scores) {
            sum += Math.exp(score - max);
          }
          double log = max + Math.log(sum);
          for (int v = 0; v < vocab; v++) {
            scores[v] -= log;
          }
          return scores;
        };
    server.setNextTokenLogprobs(previous -> next.apply(Math.toIntExact(previous)));
    String context = "Q: pick one\nA:";
    List<String> choices = List.of("ab", "xyz", "hello there", "q");
    MultipleChoiceScore inJvm;
    try (LookupLm model = LookupLm.bigram(256, false, next::apply)) {
      inJvm = new LogLikelihoodScorer(model, 4).multipleChoice(context, choices);
    }
    try (HuggingFaceTextTokenizer chars =
        new HuggingFaceTextTokenizer(
            "chars", CharTokenizer.json().getBytes(StandardCharsets.UTF_8))) {
      CompletionsLoglikelihood completions =
          new CompletionsLoglikelihood(
              "bigram",
              new LogLikelihoodEncoder(text -> widen(chars.ids(text)), null, null),
              true,
              null);
      List<LoglikelihoodResult> results =
          ask(client(3), completions.multipleChoice(context, choices, " ", Map.of()));
      MultipleChoiceScore overHttp = CompletionsLoglikelihood.score(results, choices);

      assertThat(overHttp.acc()).isEqualTo(inJvm.acc());
      assertThat(overHttp.accNorm()).isEqualTo(inJvm.accNorm());
      for (int i = 0; i < choices.size(); i++) {
        // The in-JVM scorer works in float32.
        assertThat(overHttp.choices().get(i).logLikelihood())
            .isCloseTo(inJvm.choices().get(i).logLikelihood(), within(1e-4));
        assertThat(overHttp.choices().get(i).isGreedy())
            .isEqualTo(inJvm.choices().get(i).isGreedy());
        assertThat(overHttp.choices().get(i).continuationTokens())
            .isEqualTo(inJvm.choices().get(i).continuationTokens());
      }
    }
  }

  /** vLLM's answer shape, by hand: a prompt token that is not the top one, and a generated one. */
  @Test
  void readsAVllmShapedResponseAndCutsByThePromptLength() throws Exception {
    String body =
        """
        {"id":"cmpl-1","object":"text_completion","model":"m","choices":[{"index":0,
          "text":"The sky is blue.",
          "logprobs":{"text_offset":[0,3,7,10,15],
            "token_logprobs":[null,-2.5,-0.25,-1.5,-0.75],
            "tokens":["The"," sky"," is"," blue","."],
            "top_logprobs":[null,{" sky":-2.5," sun":-1.0},{" is":-0.25},{" blue":-1.5," green":-1.5},{".":-0.75}]},
          "finish_reason":"length"}],
         "usage":{"prompt_tokens":4,"total_tokens":5,"completion_tokens":1}}
        """;
    OpenAiWire.Completion completion =
        OpenAiWire.decodeLoglikelihood(
            body.getBytes(StandardCharsets.UTF_8),
            LoglikelihoodPrompt.ofTokens(new long[] {1, 2, 3, 4}, 2));
    LoglikelihoodResult result = LoglikelihoodResult.fromJson(completion.texts().get(0));

    // The continuation is prompt tokens 2 and 3; the generated "." is never counted.
    assertThat(result.logprob()).isEqualTo(-1.75);
    assertThat(result.tokens()).containsExactly(" is", " blue");
    // A tie with the top value is greedy, as the harness's tok != max(top) says.
    assertThat(result.greedy()).isTrue();
    assertThat(completion.promptTokens()).isEqualTo(4);

    LoglikelihoodResult notGreedy =
        LoglikelihoodResult.fromJson(
            OpenAiWire.decodeLoglikelihood(
                    body.getBytes(StandardCharsets.UTF_8),
                    LoglikelihoodPrompt.ofTokens(new long[] {1, 2, 3, 4}, 1))
                .texts()
                .get(0));
    assertThat(notGreedy.logprob()).isEqualTo(-4.25);
    assertThat(notGreedy.greedy()).as("' sky' is below ' sun'").isFalse();

    String noEcho =
        "{\"choices\":[{\"index\":0,\"text\":\".\",\"logprobs\":{\"token_logprobs\":[-0.75],"
            + "\"top_logprobs\":[{\".\":-0.75}],\"tokens\":[\".\"]}}],\"usage\":{\"prompt_tokens\":4}}";
    assertThatThrownBy(
            () ->
                OpenAiWire.decodeLoglikelihood(
                    noEcho.getBytes(StandardCharsets.UTF_8),
                    LoglikelihoodPrompt.ofTokens(new long[] {1, 2, 3, 4}, 2)))
        .isInstanceOf(OpenAiWire.UnusableResponseException.class)
        .hasMessageContaining(LoglikelihoodPrompt.NO_PROMPT_LOGPROBS);
    String nullLogprobs =
        "{\"choices\":[{\"index\":0,\"text\":\"x\",\"logprobs\":null}],\"usage\":{\"prompt_tokens\":4}}";
    assertThatThrownBy(
            () ->
                OpenAiWire.decodeLoglikelihood(
                    nullLogprobs.getBytes(StandardCharsets.UTF_8),
                    LoglikelihoodPrompt.ofTokens(new long[] {1, 2, 3, 4}, 2)))
        .hasMessageContaining(LoglikelihoodPrompt.NO_PROMPT_LOGPROBS);
  }

  @Test
  void theRequestTravelsAsJsonAndItsKeyHoldsThePrompt() throws Exception {
    CompletionsLoglikelihood tokens = completions(null, true, null);
    ChatRequest request =
        tokens.request(0, new dev.infuse.udfs.lm.LogLikelihoodRequest(CONTEXT, " Paris"), Map.of());
    // LlmCallTask reads requests back from JSON.
    assertThat(JSON.readValue(JSON.writeValueAsString(request), ChatRequest.class))
        .isEqualTo(request);
    ChatRequest chat =
        new ChatRequest(
            "m",
            List.of(new ChatMessage("user", "hi")),
            new GenerationParams(8, 0, 1, 1, List.of(), 1L, false, null),
            Map.of());
    assertThat(JSON.writeValueAsString(chat)).doesNotContain("loglikelihood");
    assertThat(RequestKeys.canonicalJson("openai", chat)).doesNotContain("loglikelihood");

    ChatRequest asText =
        completions(null, false, null)
            .request(0, new dev.infuse.udfs.lm.LogLikelihoodRequest(CONTEXT, " Paris"), Map.of());
    ChatRequest otherCut =
        completions(101, true, null)
            .request(0, new dev.infuse.udfs.lm.LogLikelihoodRequest(CONTEXT, " Paris"), Map.of());
    assertThat(RequestKeys.canonicalJson("openai", request))
        .contains("\"loglikelihood\":{\"contextTokens\":")
        .contains("\"echo\":true");
    assertThat(
            List.of(
                    RequestKeys.key("openai", request),
                    RequestKeys.key("openai", asText),
                    RequestKeys.key("openai", otherCut))
                .stream()
                .distinct())
        .hasSize(3);
  }

  @Test
  void otherBackendsRefuseLogLikelihoodRequests() {
    ChatRequest request =
        completions(null, true, null)
            .request(0, new dev.infuse.udfs.lm.LogLikelihoodRequest(CONTEXT, " Paris"), Map.of());
    try (ExtractiveClient extractive =
        new ExtractiveClient(
            new LlmSettings(LlmBackend.EXTRACTIVE, null, "x", null, 1, 5, 10, 1, 10, 100))) {
      assertThatThrownBy(() -> extractive.complete(request).join())
          .hasMessageContaining("only the openai backend");
    }
  }

  private OpenAiClient client(int maxAttempts) {
    OpenAiClient client =
        new OpenAiClient(
            new LlmSettings(
                LlmBackend.OPENAI,
                server.baseUrl(),
                "served",
                null,
                4,
                5,
                30,
                maxAttempts,
                10,
                50));
    clients.add(client);
    return client;
  }

  /** The token-id prompts the server received. */
  private List<long[]> sentPrompts() {
    List<long[]> prompts = new ArrayList<>();
    for (FakeOpenAiServer.Received received : server.received()) {
      JsonNode prompt = received.json().get("prompt");
      long[] ids = new long[prompt.size()];
      for (int t = 0; t < ids.length; t++) {
        ids[t] = prompt.get(t).asLong();
      }
      prompts.add(ids);
    }
    return prompts;
  }

  private static CompletionsLoglikelihood completions(
      Integer bos, boolean tokenized, Integer maxLength) {
    return new CompletionsLoglikelihood(
        "served",
        new LogLikelihoodEncoder(CompletionsLoglikelihoodTest::ids, bos, null),
        tokenized,
        maxLength);
  }

  private static List<LoglikelihoodResult> ask(OpenAiClient client, List<ChatRequest> requests) {
    List<CompletableFuture<ChatResponse>> futures = new ArrayList<>();
    requests.forEach(r -> futures.add(client.complete(r)));
    List<LoglikelihoodResult> results = new ArrayList<>();
    for (CompletableFuture<ChatResponse> future : futures) {
      results.add(LoglikelihoodResult.fromJson(future.join().text()));
    }
    return results;
  }

  private static long[] ids(String text) {
    return widen(TOKENIZER.ids(text));
  }

  private static long[] widen(int[] ids) {
    return Arrays.stream(ids).asLongStream().toArray();
  }

  private static long[] withBos(long[] ids, Long bos) {
    if (bos == null) {
      return ids;
    }
    long[] out = new long[ids.length + 1];
    out[0] = bos;
    System.arraycopy(ids, 0, out, 1, ids.length);
    return out;
  }
}
