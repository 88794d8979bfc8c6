package dev.infuse.udfs.behavior.sft;

import dev.infuse.udfs.behavior.BehaviorTask;
import dev.infuse.udfs.behavior.BehaviorType;
import dev.infuse.udfs.behavior.score.BehaviorPrompts;
import dev.infuse.udfs.llm.ChatMessage;
import dev.infuse.udfs.prompt.PromptTemplate;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Chat-format BehaviorSFT examples: the system and user messages of the behaviour prompt ({@code
 * behavior-assistant}), then the target ({@link SftTargets}) as the assistant message, one example
 * per JSONL line. The prompt names the default tokens; with configured tokens they are swapped into
 * the prompt too, so the model is asked for the tokens it is trained on.
 */
public final class SftExamples {
  private final PromptTemplate template;

  /**
   * @param template the {@code behavior-assistant} template (udfs has no YAML reader; jobs loads
   *     it)
   */
  public SftExamples(PromptTemplate template) {
    this.template = Objects.requireNonNull(template, "template");
  }

  /** The prompt's messages, then the assistant's target. */
  public List<ChatMessage> messages(BehaviorTask task, BehaviorTokens tokens) {
    return messages(task, tokens, SftTargets.text(task));
  }

  /**
   * The prompt's messages, then the assistant's target with {@code text} after the gold behaviour's
   * token (a rewrite that {@link SftRewrite#problem} accepted, or the template text).
   */
  public List<ChatMessage> messages(BehaviorTask task, BehaviorTokens tokens, String text) {
    List<ChatMessage> messages =
        new ArrayList<>(BehaviorPrompts.messages(withTokens(tokens), task));
    messages.add(new ChatMessage("assistant", SftTargets.target(task, tokens, text)));
    return List.copyOf(messages);
  }

  /** The template with its default tokens swapped before rendering, so the context is untouched. */
  private PromptTemplate withTokens(BehaviorTokens tokens) {
    BehaviorTokens defaults = BehaviorTokens.defaults();
    List<PromptTemplate.Message> swapped = new ArrayList<>();
    for (PromptTemplate.Message message : template.messages()) {
      String content = message.content();
      for (BehaviorType type : BehaviorType.values()) {
        content = content.replace(defaults.token(type), tokens.token(type));
      }
      swapped.add(new PromptTemplate.Message(message.role(), content));
    }
    return new PromptTemplate(template.id(), template.version(), template.description(), swapped);
  }

  /** {@code behavior-assistant@vN,behavior-sft-target@vN}, stored with the examples. */
  public String versions() {
    return template.id() + "@v" + template.version() + "," + SftTargets.tag();
  }
}
