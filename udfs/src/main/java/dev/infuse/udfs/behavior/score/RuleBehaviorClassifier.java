package dev.infuse.udfs.behavior.score;

import dev.infuse.udfs.behavior.BehaviorType;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The rule-based reading of a response without a leading token, checked in this order:
 *
 * <ol>
 *   <li><b>proactive</b> when it uses a flag form: "Sentence N is wrong", "should read", a line
 *       starting "Missing:" or "Conflict:";
 *   <li><b>restraint</b> when it says nothing needs flagging ("nothing … needs flagging", "no
 *       errors", "complete and consistent", "no intervention");
 *   <li><b>proactive</b> when a sentence without a negation ("no", "not", "nothing", "without",
 *       "none") uses a flag word: error, wrong, incorrect, missing, omitted, conflict,
 *       inconsistent, contradicts, discrepancy;
 *   <li><b>reactive</b> for any other non-blank text (an answer);
 *   <li>null (missing) for a blank response.
 * </ol>
 */
public final class RuleBehaviorClassifier implements BehaviorClassifier {
  public static final String ID = "rule";
  public static final int VERSION = 1;

  private static final List<Pattern> FLAG_FORMS =
      List.of(
          Pattern.compile("(?i)\\bsentence\\s+-?\\d+\\s+is\\s+(?:wrong|incorrect)"),
          Pattern.compile("(?i)\\bshould\\s+read\\b"),
          Pattern.compile("(?im)^\\W*(?:missing|conflict)\\s*:"));
  private static final Pattern RESTRAINT =
      Pattern.compile(
          "(?i)nothing\\b[^.]{0,40}\\bneeds?\\s+(?:flagging|to be flagged)"
              + "|\\bno\\s+(?:errors?|issues|problems|omissions|conflicts)\\b"
              + "|\\bcomplete\\s+and\\s+consistent\\b|\\bno\\s+intervention\\b");
  private static final Pattern FLAG_WORD =
      Pattern.compile(
          "(?i)\\b(?:error|errors|wrong|incorrect|missing|omitted|omission|conflicts?|conflicting"
              + "|inconsistent|inconsistency|contradicts?|contradictory|discrepancy)\\b");
  private static final Pattern NEGATION =
      Pattern.compile("(?i)\\b(?:no|not|nothing|without|none|never)\\b|n't\\b");
  private static final Pattern SENTENCE_END = Pattern.compile("(?<=[.!?;])\\s+|\\R");

  @Override
  public String id() {
    return ID;
  }

  @Override
  public int version() {
    return VERSION;
  }

  @Override
  public Classification classify(String response) {
    if (response == null || response.isBlank()) {
      return new Classification(null, ID);
    }
    for (Pattern form : FLAG_FORMS) {
      if (form.matcher(response).find()) {
        return new Classification(BehaviorType.PROACTIVE, ID);
      }
    }
    if (RESTRAINT.matcher(response).find()) {
      return new Classification(BehaviorType.RESTRAINT, ID);
    }
    for (String sentence : SENTENCE_END.split(response)) {
      if (FLAG_WORD.matcher(sentence).find() && !NEGATION.matcher(sentence).find()) {
        return new Classification(BehaviorType.PROACTIVE, ID);
      }
    }
    return new Classification(BehaviorType.REACTIVE, ID);
  }
}
