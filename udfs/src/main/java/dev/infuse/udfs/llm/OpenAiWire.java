package dev.infuse.udfs.llm;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The OpenAI wire formats: chat completions, and completions with echoed prompt log-probabilities
 * for log-likelihood requests ({@link LoglikelihoodPrompt}); request bodies out, response bodies
 * in. Kept apart from {@link OpenAiClient} so the formats can be read and tested without any HTTP.
 */
final class OpenAiWire {
  static final ObjectMapper JSON =
      new ObjectMapper().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

  private OpenAiWire() {}

  /** What a 2xx body says. */
  record Completion(
      List<String> texts, String finishReason, int promptTokens, int completionTokens) {}

  /**
   * A body that is not a completion: truncated, not JSON, or without choices. Worth another try.
   */
  static final class MalformedResponseException extends Exception {
    private static final long serialVersionUID = 1L;

    MalformedResponseException(String message, Throwable cause) {
      super(message, cause);
    }
  }

  /**
   * A well-formed completion that cannot answer the request, and never will from this server: no
   * prompt log-probabilities, or a prompt counted in other tokens than the client's tokenizer. Not
   * worth another try.
   */
  static final class UnusableResponseException extends Exception {
    private static final long serialVersionUID = 1L;

    UnusableResponseException(String message) {
      super(message);
    }
  }

  /**
   * The request body. The request's model wins; {@code defaultModel} (the configured one) fills in
   * when it is blank.
   */
  static byte[] encodeRequest(ChatRequest request, String defaultModel) {
    ObjectNode body = JSON.createObjectNode();
    String model =
        request.model() == null || request.model().isBlank() ? defaultModel : request.model();
    if (model == null || model.isBlank()) {
      throw new IllegalArgumentException("no model: neither the request nor llm.model names one");
    }
    body.put("model", model);
    ArrayNode messages = body.putArray("messages");
    for (ChatMessage message : request.messages()) {
      messages.addObject().put("role", message.role()).put("content", message.content());
    }
    GenerationParams p = request.params();
    body.put("max_tokens", p.maxTokens());
    body.put("temperature", p.temperature());
    body.put("top_p", p.topP());
    body.put("n", p.n());
    if (!p.stop().isEmpty()) {
      ArrayNode stop = body.putArray("stop");
      p.stop().forEach(stop::add);
    }
    if (p.seed() != null) {
      body.put("seed", p.seed());
    }
    if (p.jsonSchema() != null) {
      ObjectNode format = body.putObject("response_format").put("type", "json_schema");
      format
          .putObject("json_schema")
          .put("name", "output")
          .set("schema", parseSchema(p.jsonSchema()));
    } else if (p.jsonMode()) {
      body.putObject("response_format").put("type", "json_object");
    }
    try {
      return JSON.writeValueAsBytes(body);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a JSON tree always serialises", e);
    }
  }

  /**
   * The completions request body of a log-likelihood request, the fields lm-evaluation-harness's
   * {@code local-completions} sends: model, prompt (token ids or text), {@code temperature: 0},
   * {@code max_tokens: 1}, {@code logprobs: 1}, {@code echo: true}, and the seed when the request
   * has one.
   */
  static byte[] encodeCompletionRequest(ChatRequest request, String defaultModel) {
    LoglikelihoodPrompt prompt = request.loglikelihood();
    ObjectNode body = JSON.createObjectNode();
    String model =
        request.model() == null || request.model().isBlank() ? defaultModel : request.model();
    if (model == null || model.isBlank()) {
      throw new IllegalArgumentException("no model: neither the request nor llm.model names one");
    }
    body.put("model", model);
    if (prompt.tokens() != null) {
      ArrayNode ids = body.putArray("prompt");
      prompt.tokens().forEach(ids::add);
    } else {
      body.put("prompt", prompt.text());
    }
    GenerationParams p = request.params();
    body.put("max_tokens", p.maxTokens());
    body.put("temperature", p.temperature());
    body.put("logprobs", LoglikelihoodPrompt.LOGPROBS);
    body.put("echo", true);
    if (p.seed() != null) {
      body.put("seed", p.seed());
    }
    try {
      return JSON.writeValueAsBytes(body);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a JSON tree always serialises", e);
    }
  }

  /**
   * Reads a completions response to a log-likelihood request, as lm-evaluation-harness's {@code
   * parse_logprobs} does: the first choice's {@code logprobs.token_logprobs} from {@code
   * contextTokens} on, for {@code continuationTokens} tokens, summed; greedy when each equals the
   * largest value of its {@code top_logprobs}. Unlike the harness, which drops the last entry
   * ({@code [ctxlen:-1]}), it cuts by the prompt's length, so the answer is the same whether the
   * server generated a token or not, and checks that the server's prompt has as many tokens as the
   * client counted.
   *
   * @throws MalformedResponseException when the body is not a completion (retryable)
   * @throws UnusableResponseException when it has no prompt log-probabilities or another prompt
   *     length (not retryable)
   */
  static Completion decodeLoglikelihood(byte[] body, LoglikelihoodPrompt prompt)
      throws MalformedResponseException, UnusableResponseException {
    JsonNode root;
    try {
      root = JSON.readTree(body);
    } catch (IOException e) {
      throw new MalformedResponseException(
          "response is not JSON (" + body.length + " bytes): " + snippet(body), e);
    }
    if (root == null || !root.isObject()) {
      throw new MalformedResponseException("response is not a JSON object: " + snippet(body), null);
    }
    JsonNode choices = root.get("choices");
    if (choices == null || !choices.isArray() || choices.isEmpty()) {
      throw new MalformedResponseException("response has no choices: " + snippet(body), null);
    }
    List<JsonNode> ordered = new ArrayList<>();
    choices.forEach(ordered::add);
    ordered.sort(Comparator.comparingInt(c -> c.path("index").asInt(0)));
    JsonNode choice = ordered.get(0);
    JsonNode usage = root.path("usage");
    int expected = prompt.promptTokens();
    Integer counted =
        usage.path("prompt_tokens").isIntegralNumber() && usage.path("prompt_tokens").asInt() > 0
            ? usage.path("prompt_tokens").asInt()
            : null;
    if (counted != null && counted != expected) {
      throw new UnusableResponseException(tokenizerMismatch(counted, prompt));
    }
    JsonNode logprobs = choice.get("logprobs");
    JsonNode values = logprobs == null ? null : logprobs.get("token_logprobs");
    if (values == null || !values.isArray() || values.size() <= LoglikelihoodPrompt.MAX_TOKENS) {
      throw new UnusableResponseException(noPromptLogprobs());
    }
    if (values.size() < expected || values.size() > expected + LoglikelihoodPrompt.MAX_TOKENS) {
      // Without usage, the echoed prompt is all there is to count the server's tokens by.
      throw new UnusableResponseException(
          tokenizerMismatch(values.size() - (values.size() > expected ? 1 : 0), prompt));
    }
    JsonNode tops = logprobs.get("top_logprobs");
    JsonNode names = logprobs.get("tokens");
    List<Double> picked = new ArrayList<>(prompt.continuationTokens());
    List<String> tokens = new ArrayList<>(prompt.continuationTokens());
    double sum = 0;
    boolean greedy = true;
    for (int i = prompt.contextTokens(); i < expected; i++) {
      JsonNode value = values.get(i);
      if (value == null || !value.isNumber()) {
        throw new UnusableResponseException(noPromptLogprobs());
      }
      double logprob = value.asDouble();
      JsonNode top = tops == null || !tops.isArray() ? null : tops.get(i);
      if (top == null || !top.isObject() || top.isEmpty()) {
        throw new UnusableResponseException(
            "the server returned no top_logprobs for prompt token "
                + i
                + " (asked with logprobs: "
                + LoglikelihoodPrompt.LOGPROBS
                + "), which is_greedy is computed from: "
                + snippet(body));
      }
      double best = Double.NEGATIVE_INFINITY;
      for (JsonNode candidate : top) {
        if (candidate.isNumber()) {
          best = Math.max(best, candidate.asDouble());
        }
      }
      // The harness: tok != max(top.values()) means not greedy.
      greedy &= logprob >= best;
      sum += logprob;
      picked.add(logprob);
      if (names != null && names.isArray() && names.get(i) != null) {
        tokens.add(names.get(i).asText());
      }
    }
    JsonNode finish = choice.get("finish_reason");
    return new Completion(
        List.of(
            new LoglikelihoodResult(
                    sum, greedy, picked, tokens.size() == picked.size() ? tokens : List.of())
                .toJson()),
        finish == null || finish.isNull() ? "" : finish.asText(),
        counted != null ? counted : expected,
        usage.path("completion_tokens").asInt(0));
  }

  private static String noPromptLogprobs() {
    return "the server "
        + LoglikelihoodPrompt.NO_PROMPT_LOGPROBS
        + " tokens (a completions request with echo: true and logprobs: "
        + LoglikelihoodPrompt.LOGPROBS
        + ", as lm-evaluation-harness's local-completions sends), which answer.mode loglikelihood"
        + " needs; serve the model where such a request returns them (vLLM, SGLang), or set"
        + " answer.mode=generate for this model";
  }

  private static String tokenizerMismatch(int counted, LoglikelihoodPrompt prompt) {
    return "the server counted "
        + counted
        + " prompt tokens where the endpoint's tokenizer counted "
        + prompt.promptTokens()
        + (prompt.tokens() != null
            ? " (the prompt was sent as token ids)"
            : " (the prompt was sent as text, which the server tokenizes and may give special"
                + " tokens such as BOS)")
        + "; expected the served model's own tokenizer.json as the endpoint's tokenizer, and"
        + " answer.add_bos as the server adds special tokens (or tokenized_requests: true)";
  }

  /** A JSON schema given as text, parsed; invalid JSON is the caller's mistake. */
  static JsonNode parseSchema(String schema) {
    try {
      JsonNode node = JSON.readTree(schema);
      if (node == null || node.isMissingNode()) {
        throw new IllegalArgumentException("jsonSchema is empty");
      }
      return node;
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException(
          "jsonSchema is not valid JSON: " + e.getOriginalMessage(), e);
    }
  }

  /**
   * Parses a 2xx body; choices are ordered by their {@code index}. Missing usage counts as 0
   * tokens.
   */
  static Completion decodeResponse(byte[] body) throws MalformedResponseException {
    JsonNode root;
    try {
      root = JSON.readTree(body);
    } catch (IOException e) {
      throw new MalformedResponseException(
          "response is not JSON (" + body.length + " bytes): " + snippet(body), e);
    }
    if (root == null || !root.isObject()) {
      throw new MalformedResponseException("response is not a JSON object: " + snippet(body), null);
    }
    JsonNode choices = root.get("choices");
    if (choices == null || !choices.isArray() || choices.isEmpty()) {
      throw new MalformedResponseException("response has no choices: " + snippet(body), null);
    }
    List<JsonNode> ordered = new ArrayList<>();
    choices.forEach(ordered::add);
    ordered.sort(Comparator.comparingInt(c -> c.path("index").asInt(0)));
    List<String> texts = new ArrayList<>();
    for (JsonNode choice : ordered) {
      JsonNode message = choice.get("message");
      if (message == null || !message.isObject()) {
        throw new MalformedResponseException("a choice has no message: " + snippet(body), null);
      }
      JsonNode content = message.get("content");
      texts.add(content == null || content.isNull() ? "" : content.asText());
    }
    JsonNode finish = ordered.get(0).get("finish_reason");
    String finishReason = finish == null || finish.isNull() ? "" : finish.asText();
    JsonNode usage = root.path("usage");
    return new Completion(
        texts,
        finishReason,
        usage.path("prompt_tokens").asInt(0),
        usage.path("completion_tokens").asInt(0));
  }

  /** The first 200 characters of a body, for error messages. */
  static String snippet(byte[] body) {
    String text = new String(body, StandardCharsets.UTF_8);
    return text.length() <= 200 ? text : text.substring(0, 200) + "…";
  }
}
