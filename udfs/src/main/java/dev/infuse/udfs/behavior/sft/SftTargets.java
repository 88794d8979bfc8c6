package dev.infuse.udfs.behavior.sft;

import dev.infuse.udfs.behavior.BehaviorTask;
import dev.infuse.udfs.behavior.GoldTarget;
import java.util.ArrayList;
import java.util.List;

/**
 * BehaviorSFT's assistant targets: the gold behaviour's token, a space, then the gold target in the
 * form behaviour mode asks a model for, so the scorers read a target back exactly (ContentScorer,
 * MedecResponseParser, BehaviorTokenClassifier):
 *
 * <ul>
 *   <li>error: {@code Sentence 7 is wrong: <wrong>. It should read: <corrected>.} ({@code The
 *       record is wrong: …} when the id is -1 or absent)
 *   <li>omission: {@code Missing: <item>.}
 *   <li>conflict: {@code Conflict: <item>: <first> vs <second>.}
 *   <li>order: {@code Order: <event>; <event>; <event>.} in the right order
 *   <li>answer: {@code Answer: C. <text>} ({@code Answer: <text>} without a letter)
 *   <li>none: {@code Nothing in the record needs flagging.}, then the answer as above when the task
 *       has a query and the target carries an answer
 * </ul>
 *
 * Texts lose one trailing period before one is added, so a sentence is never closed twice.
 */
public final class SftTargets {
  public static final String ID = "behavior-sft-target";

  /** Bumped on any change to the formats above. */
  public static final int VERSION = 1;

  /** The restraint sentence. */
  public static final String NOTHING_TO_FLAG = "Nothing in the record needs flagging.";

  private SftTargets() {}

  /** The target of {@code task}: its gold behaviour's token, then the gold target's text. */
  public static String target(BehaviorTask task, BehaviorTokens tokens) {
    return target(task, tokens, text(task));
  }

  /**
   * The target of {@code task} with {@code text} after the token (an LLM rewrite of {@link #text}):
   * the token always comes from the gold behaviour, never from the text.
   */
  public static String target(BehaviorTask task, BehaviorTokens tokens, String text) {
    return tokens.token(task.goldBehavior()) + " " + text.strip();
  }

  /** {@code id@vN}. */
  public static String tag() {
    return ID + "@v" + VERSION;
  }

  /** The target's text without the token, in the forms above. */
  public static String text(BehaviorTask task) {
    GoldTarget gold = task.goldTarget();
    switch (gold.kind()) {
      case GoldTarget.ERROR:
        String where =
            gold.sentenceId() == null || gold.sentenceId() < 0
                ? "The record is wrong: "
                : "Sentence " + gold.sentenceId() + " is wrong: ";
        return where + stop(gold.wrong()) + " It should read: " + stop(gold.corrected());
      case GoldTarget.OMISSION:
        return "Missing: " + stop(gold.item());
      case GoldTarget.CONFLICT:
        return "Conflict: " + gold.item() + ": " + gold.first() + " vs " + stop(gold.second());
      case GoldTarget.ORDER:
        List<String> ordered = new ArrayList<>();
        for (int index : gold.order()) {
          ordered.add(bare(gold.events().get(index)));
        }
        return "Order: " + String.join("; ", ordered) + ".";
      case GoldTarget.ANSWER:
        return answer(gold);
      default:
        boolean asked = task.query() != null && !task.query().isBlank();
        boolean known = gold.answer() != null || gold.text() != null;
        return asked && known ? NOTHING_TO_FLAG + " " + answer(gold) : NOTHING_TO_FLAG;
    }
  }

  private static String answer(GoldTarget gold) {
    String letter = gold.answer() == null ? "" : gold.answer().strip();
    if (letter.length() == 1 && Character.isLetter(letter.charAt(0))) {
      return gold.text() == null
          ? "Answer: " + letter + "."
          : "Answer: " + letter + ". " + gold.text().strip();
    }
    return "Answer: " + (letter.isEmpty() ? gold.text().strip() : letter);
  }

  private static String stop(String text) {
    return bare(text) + ".";
  }

  private static String bare(String text) {
    String out = text == null ? "" : text.strip();
    return out.endsWith(".") ? out.substring(0, out.length() - 1) : out;
  }
}
