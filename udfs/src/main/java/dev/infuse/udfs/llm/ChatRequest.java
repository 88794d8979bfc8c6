package dev.infuse.udfs.llm;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;
import java.util.Map;

/**
 * A request to a model: a chat completion, or a log-likelihood over the completions API.
 *
 * @param model the model name the backend serves
 * @param messages the rendered prompt; empty for a log-likelihood request
 * @param params sampling settings
 * @param task the structured inputs the prompt was rendered from ({@code task} names the kind, the
 *     rest are the template's variables). HTTP backends ignore it; the model-free {@code
 *     extractive} backend works from it alone. It is not part of the request key: the messages
 *     already hold it.
 * @param loglikelihood the prompt whose log-likelihood is asked (the {@code openai} backend sends
 *     it to {@code /completions}, and the response text is a {@link LoglikelihoodResult}); null for
 *     a chat completion
 */
public record ChatRequest(
    String model,
    List<ChatMessage> messages,
    GenerationParams params,
    Map<String, String> task,
    @JsonInclude(JsonInclude.Include.NON_NULL) LoglikelihoodPrompt loglikelihood) {
  @JsonCreator
  public ChatRequest {
    messages = List.copyOf(messages);
    task = task == null ? Map.of() : Map.copyOf(task);
  }

  /** A chat completion. */
  public ChatRequest(
      String model, List<ChatMessage> messages, GenerationParams params, Map<String, String> task) {
    this(model, messages, params, task, null);
  }

  /** A log-likelihood request: no messages, greedy, one generated token that is not counted. */
  public static ChatRequest forLoglikelihood(
      String model, LoglikelihoodPrompt prompt, Map<String, String> task) {
    return new ChatRequest(
        model,
        List.of(),
        new GenerationParams(
            LoglikelihoodPrompt.MAX_TOKENS, 0.0, 1.0, 1, List.of(), null, false, null),
        task,
        prompt);
  }
}
