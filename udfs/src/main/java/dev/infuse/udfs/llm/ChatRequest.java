package dev.infuse.udfs.llm;

import java.util.List;
import java.util.Map;

/**
 * A chat-completion request.
 *
 * @param model the model name the backend serves
 * @param messages the rendered prompt
 * @param params sampling settings
 * @param task the structured inputs the prompt was rendered from ({@code task} names the kind, the
 *     rest are the template's variables). HTTP backends ignore it; the model-free {@code
 *     extractive} backend works from it alone. It is not part of the request key: the messages
 *     already hold it.
 */
public record ChatRequest(
    String model, List<ChatMessage> messages, GenerationParams params, Map<String, String> task) {
  public ChatRequest {
    messages = List.copyOf(messages);
    task = task == null ? Map.of() : Map.copyOf(task);
  }
}
