package dev.infuse.udfs.llm;

import java.util.List;
import java.util.Locale;

/**
 * The chat template of the {@code djl} backend, for models trained on plain text rather than a
 * tokenizer's own chat format. Each message is a line {@code Role: content} (System, User or
 * Assistant), and the prompt ends with {@code Assistant:} for the model to continue:
 *
 * <pre>
 * System: You write questions.
 * User: Write one question.
 * Assistant:</pre>
 *
 * <p>Generation stops at {@link #STOP}, where the model starts writing the next user turn itself.
 */
public final class PlainChatTemplate {
  /** Ends the assistant's turn. */
  public static final String STOP = "\nUser:";

  private PlainChatTemplate() {}

  /** The prompt for {@code messages}; an unknown role fails naming it and the accepted roles. */
  public static String render(List<ChatMessage> messages) {
    StringBuilder prompt = new StringBuilder();
    for (ChatMessage message : messages) {
      prompt.append(label(message.role())).append(": ").append(message.content()).append('\n');
    }
    return prompt.append("Assistant:").toString();
  }

  private static String label(String role) {
    String lower = role == null ? "" : role.toLowerCase(Locale.ROOT);
    return switch (lower) {
      case "system" -> "System";
      case "user" -> "User";
      case "assistant" -> "Assistant";
      default ->
          throw new IllegalArgumentException(
              "message role: got " + role + ", expected system, user or assistant");
    };
  }
}
