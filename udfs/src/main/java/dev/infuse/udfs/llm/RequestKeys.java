package dev.infuse.udfs.llm;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.infuse.udfs.common.Keys;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.Objects;

/**
 * The identity of an LLM call: a hash of everything that decides the answer (backend, model,
 * messages, sampling settings), so finished calls are found again and never sent twice. The
 * canonical JSON it hashes is also what the jobs store as the call's {@code request}; it holds no
 * API key because a {@link ChatRequest} has none. The request's {@code task} is left out: the
 * messages already hold it. A log-likelihood request adds its prompt (token ids or text), the
 * context/continuation cut and what it asks the server for; a chat request has no such key.
 */
public final class RequestKeys {
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private RequestKeys() {}

  /** 64 lowercase hex characters: SHA-256 of {@link #canonicalJson}. */
  public static String key(String backend, ChatRequest request) {
    return HexFormat.of()
        .formatHex(Keys.sha256(canonicalJson(backend, request).getBytes(StandardCharsets.UTF_8)));
  }

  /**
   * The request as canonical JSON: sorted keys, no whitespace, normalised numbers; a JSON schema is
   * embedded parsed (and so canonicalised too), and must be valid JSON.
   */
  public static String canonicalJson(String backend, ChatRequest request) {
    Objects.requireNonNull(request, "request");
    ObjectNode root = NODES.objectNode();
    root.put("backend", backend);
    root.put("model", request.model());
    ArrayNode messages = root.putArray("messages");
    for (ChatMessage message : request.messages()) {
      messages.addObject().put("role", message.role()).put("content", message.content());
    }
    GenerationParams p = Objects.requireNonNull(request.params(), "request.params");
    ObjectNode params = root.putObject("params");
    params.put("maxTokens", p.maxTokens());
    params.put("temperature", p.temperature());
    params.put("topP", p.topP());
    params.put("n", p.n());
    ArrayNode stop = params.putArray("stop");
    p.stop().forEach(stop::add);
    params.put("seed", p.seed());
    params.put("jsonMode", p.jsonMode());
    params.set(
        "jsonSchema",
        p.jsonSchema() == null ? NODES.nullNode() : OpenAiWire.parseSchema(p.jsonSchema()));
    LoglikelihoodPrompt prompt = request.loglikelihood();
    if (prompt != null) {
      // Only log-likelihood requests have it, so every chat request keeps the key it always had.
      ObjectNode loglikelihood = root.putObject("loglikelihood");
      if (prompt.tokens() != null) {
        ArrayNode tokens = loglikelihood.putArray("tokens");
        prompt.tokens().forEach(tokens::add);
      } else {
        loglikelihood.put("text", prompt.text());
      }
      loglikelihood.put("contextTokens", prompt.contextTokens());
      loglikelihood.put("continuationTokens", prompt.continuationTokens());
      loglikelihood.put("echo", true);
      loglikelihood.put("logprobs", LoglikelihoodPrompt.LOGPROBS);
    }
    return CanonicalJson.write(root);
  }
}
