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
 * The OpenAI chat-completions wire format: request bodies out, response bodies in. Kept apart from
 * {@link OpenAiClient} so the format can be read and tested without any HTTP.
 */
final class OpenAiWire {
  static final ObjectMapper JSON =
      new ObjectMapper().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

  private OpenAiWire() {}

  /** What a 2xx body says. */
  record Completion(
      List<String> texts, String finishReason, int promptTokens, int completionTokens) {}

  /** A body that is not a chat completion: truncated, not JSON, or without choices. */
  static final class MalformedResponseException extends Exception {
    private static final long serialVersionUID = 1L;

    MalformedResponseException(String message, Throwable cause) {
      super(message, cause);
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
