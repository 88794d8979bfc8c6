package dev.infuse.udfs.behavior.score;

import dev.infuse.udfs.behavior.BehaviorTask;
import dev.infuse.udfs.behavior.Turn;
import dev.infuse.udfs.generate.GenerationTask;
import dev.infuse.udfs.llm.ChatMessage;
import dev.infuse.udfs.llm.ChatRequest;
import dev.infuse.udfs.llm.GenerationParams;
import dev.infuse.udfs.prompt.PromptTemplate;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Behaviour mode's inputs: a {@link BehaviorTask} as the {@link GenerationTask#BEHAVE} task map
 * (rendered by {@code conf/prompts/behavior-assistant.yaml}). Only the context and the query leave
 * the task; the gold behaviour, gold target and construction never do, so no prompt can leak them.
 */
public final class BehaviorPrompts {
  /** The template id that renders {@link GenerationTask#BEHAVE}. */
  public static final String TEMPLATE_ID = "behavior-assistant";

  private BehaviorPrompts() {}

  /** The turns as the model sees them: one "speaker: text" line per turn, in order. */
  public static String context(List<Turn> turns) {
    List<String> lines = new ArrayList<>(turns.size());
    for (Turn turn : turns) {
      lines.add(turn.speaker() + ": " + turn.text().strip());
    }
    return String.join("\n", lines);
  }

  /** {@code task=behave}, {@code context} and {@code query} (empty when none was asked). */
  public static Map<String, String> task(BehaviorTask task) {
    Map<String, String> map = new LinkedHashMap<>();
    map.put(GenerationTask.KIND, GenerationTask.BEHAVE);
    map.put(GenerationTask.CONTEXT, context(task.context()));
    map.put(GenerationTask.QUERY, task.query() == null ? "" : task.query().strip());
    return map;
  }

  /**
   * The request for one task, rendered with {@code template}.
   *
   * @throws IllegalArgumentException when the template is not {@value #TEMPLATE_ID}
   */
  public static ChatRequest request(
      PromptTemplate template, BehaviorTask task, String model, GenerationParams params) {
    return GenerationTask.request(
        GenerationTask.BEHAVE, checked(template), task(task), model, params);
  }

  /** The rendered messages alone (for chat-format training data). */
  public static List<ChatMessage> messages(PromptTemplate template, BehaviorTask task) {
    List<ChatMessage> messages = new ArrayList<>();
    for (PromptTemplate.Message message : checked(template).render(task(task))) {
      messages.add(new ChatMessage(message.role(), message.content()));
    }
    return List.copyOf(messages);
  }

  private static PromptTemplate checked(PromptTemplate template) {
    Objects.requireNonNull(template, "template");
    if (!TEMPLATE_ID.equals(template.id())) {
      throw new IllegalArgumentException(
          "template: got " + template.id() + ", expected " + TEMPLATE_ID);
    }
    return template;
  }
}
