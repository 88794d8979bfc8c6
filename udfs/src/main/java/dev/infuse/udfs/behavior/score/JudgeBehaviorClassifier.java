package dev.infuse.udfs.behavior.score;

import dev.infuse.udfs.behavior.BehaviorTask;
import dev.infuse.udfs.behavior.BehaviorType;
import dev.infuse.udfs.generate.GenerationTask;
import dev.infuse.udfs.llm.ChatRequest;
import dev.infuse.udfs.llm.GenerationParams;
import dev.infuse.udfs.prompt.PromptTemplate;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An LLM judge's reading. Two steps, because the call is the caller's (batched, retried, cached):
 * {@link #request} builds the {@link GenerationTask#BEHAVIOR_JUDGE} request from the context and
 * the response (never the gold), rendered by {@code conf/prompts/behavior-judge.yaml}; {@link
 * #classify} then parses the <em>judge's reply</em>: the last {@code Behavior: <type>} line (or
 * "Behaviour"). A reply without one reads as missing.
 */
public final class JudgeBehaviorClassifier implements BehaviorClassifier {
  public static final String ID = "judge";

  /** Bumped with the parser; the template's own version is stored next to it. */
  public static final int VERSION = 1;

  /** The template id that renders {@link GenerationTask#BEHAVIOR_JUDGE}. */
  public static final String TEMPLATE_ID = "behavior-judge";

  private static final Pattern VERDICT =
      Pattern.compile("(?i)behaviou?r\\s*[:=]\\s*\\**\\s*(reactive|proactive|restraint)\\b");

  @Override
  public String id() {
    return ID;
  }

  @Override
  public int version() {
    return VERSION;
  }

  /** {@code task=behavior_judge}, {@code context} and {@code response}. */
  public static Map<String, String> task(BehaviorTask task, String response) {
    Map<String, String> map = new LinkedHashMap<>();
    map.put(GenerationTask.KIND, GenerationTask.BEHAVIOR_JUDGE);
    map.put(GenerationTask.CONTEXT, BehaviorPrompts.context(task.context()));
    map.put(GenerationTask.RESPONSE, Objects.requireNonNull(response, "response"));
    return map;
  }

  /**
   * The judge request for one response.
   *
   * @throws IllegalArgumentException when the template is not {@value #TEMPLATE_ID}
   */
  public static ChatRequest request(
      PromptTemplate template,
      BehaviorTask task,
      String response,
      String model,
      GenerationParams params) {
    if (template == null || !TEMPLATE_ID.equals(template.id())) {
      throw new IllegalArgumentException(
          "template: got "
              + (template == null ? null : template.id())
              + ", expected "
              + TEMPLATE_ID);
    }
    return GenerationTask.request(
        GenerationTask.BEHAVIOR_JUDGE, template, task(task, response), model, params);
  }

  /** Parses the judge's reply (not the assistant's response). */
  @Override
  public Classification classify(String judgeReply) {
    if (judgeReply == null) {
      return new Classification(null, ID);
    }
    Matcher matcher = VERDICT.matcher(judgeReply);
    String last = null;
    while (matcher.find()) {
      last = matcher.group(1);
    }
    return new Classification(
        last == null ? null : BehaviorType.fromName(last.toLowerCase(Locale.ROOT)), ID);
  }
}
