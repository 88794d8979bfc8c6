package dev.infuse.udfs.behavior.score;

import dev.infuse.udfs.behavior.GoldTarget;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Whether a response's content names what the task was built around. Texts are compared after
 * {@link #normalize}: lower case, every run of characters other than letters and digits becomes one
 * space, trimmed; "X is named" means normalize(X) occurs in normalize(response) on word boundaries.
 * The rule per gold kind:
 *
 * <ul>
 *   <li>{@code error}: a "Sentence N" in the response has N equal to the gold sentence id (when it
 *       is >= 0), or the wrong text is named (so a MEDEC note's quoted sentence counts).
 *   <li>{@code omission}: the missing item is named.
 *   <li>{@code conflict}: the item is named, or both values are named.
 *   <li>{@code answer}: when the response has "Answer: X" with a single letter, X equals the gold
 *       letter; otherwise the gold answer or its text is named.
 *   <li>{@code order}: "Order: i, j, k" equals the gold indexes, or every event is named and they
 *       first occur in the gold order.
 *   <li>{@code none}, or a target with nothing set to check: null.
 * </ul>
 *
 * <p>It checks content only; whether the behaviour was right is the classifier's business.
 */
public final class ContentScorer {
  /** Bumped on any change to the rule above. */
  public static final int VERSION = 1;

  private static final Pattern SENTENCE_ID = Pattern.compile("(?i)\\bsentence\\s+(-?\\d{1,9})\\b");
  private static final Pattern ANSWER_LETTER =
      Pattern.compile("(?i)\\banswer\\s*(?:is)?\\s*[:=]?\\s*\\(?([A-Z])\\)?(?![\\p{L}\\p{N}])");
  private static final Pattern ORDER_INDEXES =
      Pattern.compile("(?i)\\border\\s*:\\s*(\\d+(?:\\s*,\\s*\\d+)*)");

  private ContentScorer() {}

  /** True when the content is named, false when not, null when the gold has nothing to check. */
  public static Boolean contentCorrect(GoldTarget gold, String response) {
    String text = response == null ? "" : response;
    String norm = normalize(text);
    switch (gold.kind()) {
      case GoldTarget.ERROR:
        boolean hasId = gold.sentenceId() != null && gold.sentenceId() >= 0;
        if (!hasId && blank(gold.wrong())) {
          return null;
        }
        return (hasId && namesSentence(text, gold.sentenceId())) || named(norm, gold.wrong());
      case GoldTarget.OMISSION:
        return blank(gold.item()) ? null : named(norm, gold.item());
      case GoldTarget.CONFLICT:
        if (blank(gold.item()) && (blank(gold.first()) || blank(gold.second()))) {
          return null;
        }
        return named(norm, gold.item())
            || (named(norm, gold.first()) && named(norm, gold.second()));
      case GoldTarget.ANSWER:
        return answer(gold, text, norm);
      case GoldTarget.ORDER:
        return order(gold, text, norm);
      default:
        return null;
    }
  }

  /** Lower case, runs of non-alphanumerics to one space, trimmed. */
  public static String normalize(String text) {
    if (text == null) {
      return "";
    }
    return text.toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{N}]+", " ").strip();
  }

  private static Boolean answer(GoldTarget gold, String text, String norm) {
    if (blank(gold.answer()) && blank(gold.text())) {
      return null;
    }
    String letter = gold.answer() == null ? "" : gold.answer().strip();
    if (letter.length() == 1 && Character.isLetter(letter.charAt(0))) {
      Matcher m = ANSWER_LETTER.matcher(text);
      if (m.find()) {
        return m.group(1).equalsIgnoreCase(letter);
      }
      return named(norm, gold.text());
    }
    return named(norm, gold.answer()) || named(norm, gold.text());
  }

  private static Boolean order(GoldTarget gold, String text, String norm) {
    if (gold.order() == null || gold.order().isEmpty() || gold.events() == null) {
      return null;
    }
    Matcher m = ORDER_INDEXES.matcher(text);
    if (m.find()) {
      List<Integer> given = new ArrayList<>();
      for (String part : m.group(1).split(",")) {
        given.add(Integer.parseInt(part.strip()));
      }
      if (given.equals(gold.order())) {
        return true;
      }
    }
    int last = -1;
    for (int index : gold.order()) {
      String event = normalize(gold.events().get(index));
      int at = (" " + norm + " ").indexOf(" " + event + " ");
      if (event.isEmpty() || at <= last) {
        return false;
      }
      last = at;
    }
    return true;
  }

  private static boolean namesSentence(String text, int id) {
    Matcher m = SENTENCE_ID.matcher(text);
    while (m.find()) {
      if (Integer.parseInt(m.group(1)) == id) {
        return true;
      }
    }
    return false;
  }

  /** Whether normalize(phrase) is non-empty and occurs in {@code norm} on word boundaries. */
  static boolean named(String norm, String phrase) {
    String p = normalize(phrase);
    return !p.isEmpty() && (" " + norm + " ").contains(" " + p + " ");
  }

  private static boolean blank(String value) {
    return value == null || normalize(value).isEmpty();
  }
}
