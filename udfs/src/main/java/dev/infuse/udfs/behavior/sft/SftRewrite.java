package dev.infuse.udfs.behavior.sft;

import dev.infuse.udfs.behavior.BehaviorTask;
import dev.infuse.udfs.behavior.BehaviorType;
import dev.infuse.udfs.behavior.score.BehaviorPrompts;
import dev.infuse.udfs.behavior.score.Classification;
import dev.infuse.udfs.behavior.score.ContentScorer;
import dev.infuse.udfs.behavior.score.RuleBehaviorClassifier;
import dev.infuse.udfs.generate.GenerationTask;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * BehaviorSFT targets rewritten by a model ({@code behavior.sft.rewrite=llm}): the template text of
 * {@link SftTargets#text} goes with the task's context and query to a model ({@link
 * GenerationTask#BEHAVIOR_SFT_REWRITE}, prompt {@code behavior-sft-rewrite}), which answers as a
 * clinical assistant stating the same facts. The behavioural token is never the model's: the job
 * puts the gold behaviour's token before the text. A rewrite replaces the template text only when
 * it passes this check ({@value #CHECK_ID} v{@value #CHECK_VERSION}):
 *
 * <ol>
 *   <li>it is not blank;
 *   <li>it writes no behavioural token (of the configured tokens or the defaults);
 *   <li>{@link ContentScorer#contentCorrect} does not find it wrong: a flag names what the gold
 *       target holds, an answer the gold answer (a gold with nothing to check passes);
 *   <li>when the gold behaviour is not proactive, the rule classifier does not read a flag in it.
 * </ol>
 */
public final class SftRewrite {
  public static final String CHECK_ID = "sft-rewrite-check";

  /** Bumped on any change to the check above. */
  public static final int CHECK_VERSION = 1;

  /** The {@code target_source} of a template target. */
  public static final String TEMPLATE = "template";

  private SftRewrite() {}

  /** The request's variables: the context, the query (empty when none) and the template text. */
  public static Map<String, String> variables(BehaviorTask task) {
    Map<String, String> vars = new LinkedHashMap<>(BehaviorPrompts.task(task));
    vars.remove(GenerationTask.KIND);
    vars.put(GenerationTask.TARGET, SftTargets.text(task));
    return vars;
  }

  /** Why {@code rewrite} cannot replace the template text of {@code task}, or empty when it can. */
  public static Optional<String> problem(BehaviorTask task, String rewrite, BehaviorTokens tokens) {
    if (rewrite == null || rewrite.isBlank()) {
      return Optional.of("the rewrite is blank");
    }
    String lower = rewrite.toLowerCase(Locale.ROOT);
    BehaviorTokens defaults = BehaviorTokens.defaults();
    for (BehaviorType type : BehaviorType.values()) {
      for (String token : new String[] {tokens.token(type), defaults.token(type)}) {
        if (lower.contains(token.toLowerCase(Locale.ROOT))) {
          return Optional.of("the rewrite writes the behavioural token " + token + " itself");
        }
      }
    }
    if (Boolean.FALSE.equals(ContentScorer.contentCorrect(task.goldTarget(), rewrite))) {
      return Optional.of(
          "not content-correct (ContentScorer v"
              + ContentScorer.VERSION
              + "): it does not name the gold "
              + task.goldTarget().kind()
              + "'s content");
    }
    if (task.goldBehavior() != BehaviorType.PROACTIVE) {
      Classification read = new RuleBehaviorClassifier().classify(rewrite);
      if (read.behavior() == BehaviorType.PROACTIVE) {
        return Optional.of(
            "reads as a flag (rule@v"
                + RuleBehaviorClassifier.VERSION
                + ") where the gold behaviour is "
                + task.goldBehavior().id());
      }
    }
    return Optional.empty();
  }
}
