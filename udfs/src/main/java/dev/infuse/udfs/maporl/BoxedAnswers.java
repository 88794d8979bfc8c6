package dev.infuse.udfs.maporl;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads the final answer of a discussion response: the content of its last complete {@code
 * \boxed{...}} (braces inside it nest, so {@code \boxed{\frac{1}{2}}} holds {@code \frac{1}{2}}),
 * read by the question's kind.
 *
 * <ul>
 *   <li>GSM8K: every character but digits, {@code .} and {@code -} is dropped, as the reference
 *       does, and the rest must be one decimal number; it is written in canonical form, an integer
 *       without a fraction when it is integral ({@code 1,234.00} and {@code $1234} give {@code
 *       1234}, {@code 0.50} gives {@code 0.5}). The reference parses with Python's {@code int()},
 *       so it reads {@code 18.00} and {@code 2.5} as invalid; Infuse reads them as numbers.
 *   <li>ANLI: the box's letters, lower-cased, must contain {@code entailment}, {@code neutral} or
 *       {@code contradiction}, tried in that order (the reference's rule: {@code Neutral.} and
 *       {@code \text{contradiction}} are read, and a box naming two labels gives the first of that
 *       order).
 *   <li>MCQ: an option letter within the question's options: {@code B}, {@code (B)}, {@code B.},
 *       {@code B) text}, {@code B: text}, {@code Option B}; a lone lower-case letter ({@code b},
 *       {@code (b)}) is read too, but a lower-case letter followed by text is not (it is a word).
 * </ul>
 *
 * <p>Unlike the reference, a response without a box is {@link ExtractedAnswer#NO_BOXED} (the
 * reference reads the whole response instead). And a box written with spaces inside its marker,
 * {@code \ boxed { 9 }}, is read as {@code \boxed{9}}: a WordPiece tokenizer (the default one
 * Infuse's {@code train} job gives its policies) decodes {@code \boxed{9}} that way, so without
 * this an Infuse-trained policy could never be read as right.
 */
public final class BoxedAnswers {
  /** The box's opening, spaces allowed inside it (a WordPiece decoder writes "\ boxed {"). */
  private static final Pattern BOX = Pattern.compile("\\\\\\s*boxed\\s*\\{");

  private static final Pattern NOT_NUMERIC = Pattern.compile("[^0-9.\\-]");
  private static final Pattern NOT_LETTER = Pattern.compile("[^a-zA-Z]");
  private static final String[] LABELS = {"entailment", "neutral", "contradiction"};
  private static final Pattern OPTION =
      Pattern.compile("^(?:option\\s+)?\\(?([A-Z])\\)?(?:$|[.):,]|\\s)", Pattern.CASE_INSENSITIVE);
  private static final Pattern LONE_LETTER = Pattern.compile("^\\(?([a-zA-Z])\\)?\\.?$");

  private BoxedAnswers() {}

  /**
   * The answer of {@code response}.
   *
   * @param optionCount how many options an MCQ question has (1–26); ignored for other kinds
   */
  public static ExtractedAnswer extract(String response, QuestionKind kind, int optionCount) {
    String boxed = lastBoxed(response == null ? "" : response);
    if (boxed == null) {
      return ExtractedAnswer.invalid(ExtractedAnswer.NO_BOXED);
    }
    String answer =
        switch (kind) {
          case GSM8K -> number(boxed);
          case ANLI -> label(boxed);
          case MCQ -> letter(boxed, optionCount);
        };
    return answer == null
        ? ExtractedAnswer.invalid(ExtractedAnswer.UNPARSEABLE)
        : ExtractedAnswer.ok(answer);
  }

  /**
   * Whether {@code answer} is the gold answer: an invalid answer never is; GSM8K compares numbers
   * ({@code gold} may be {@code 72}, {@code 1,234} or a GSM8K solution ending {@code #### 72});
   * ANLI and MCQ compare case-insensitively.
   */
  public static boolean isCorrect(ExtractedAnswer answer, String gold, QuestionKind kind) {
    if (answer == null || !answer.valid() || gold == null) {
      return false;
    }
    if (kind == QuestionKind.GSM8K) {
      int hashes = gold.lastIndexOf("####");
      String goldNumber = number(hashes >= 0 ? gold.substring(hashes + 4) : gold);
      if (goldNumber == null) {
        return false;
      }
      return new BigDecimal(answer.answer()).compareTo(new BigDecimal(goldNumber)) == 0;
    }
    return answer.answer().strip().equalsIgnoreCase(gold.strip());
  }

  /**
   * The content of the last {@code \boxed{...}} whose braces close, or null when there is none. A
   * box left open at the end (a response cut off mid-answer) does not count.
   */
  public static String lastBoxed(String text) {
    List<int[]> openings = new ArrayList<>();
    Matcher box = BOX.matcher(text);
    while (box.find()) {
      openings.add(new int[] {box.start(), box.end()});
    }
    for (int k = openings.size() - 1; k >= 0; k--) {
      int contentStart = openings.get(k)[1];
      int depth = 1;
      int i = contentStart;
      for (; i < text.length() && depth > 0; i++) {
        char c = text.charAt(i);
        if (c == '{') {
          depth++;
        } else if (c == '}') {
          depth--;
        }
      }
      if (depth == 0) {
        return text.substring(contentStart, i - 1).strip();
      }
    }
    return null;
  }

  /** The canonical number the text holds once all but digits, '.' and '-' are dropped, or null. */
  static String number(String text) {
    String digits = NOT_NUMERIC.matcher(text).replaceAll("");
    if (digits.isEmpty() || digits.chars().noneMatch(Character::isDigit)) {
      return null;
    }
    BigDecimal value;
    try {
      value = new BigDecimal(digits);
    } catch (NumberFormatException e) {
      return null;
    }
    if (value.signum() == 0) {
      return "0";
    }
    return value.stripTrailingZeros().toPlainString();
  }

  private static String label(String text) {
    String letters = NOT_LETTER.matcher(text).replaceAll("").toLowerCase(Locale.ROOT);
    for (String label : LABELS) {
      if (letters.contains(label)) {
        return label;
      }
    }
    return null;
  }

  private static String letter(String text, int optionCount) {
    String stripped = text.replace("\\text{", "").replace("}", "").strip();
    Matcher lone = LONE_LETTER.matcher(stripped);
    String letter = null;
    if (lone.matches()) {
      letter = lone.group(1).toUpperCase(Locale.ROOT);
    } else {
      Matcher option = OPTION.matcher(stripped);
      if (option.find() && Character.isUpperCase(option.group(1).charAt(0))) {
        letter = option.group(1);
      }
    }
    if (letter == null) {
      return null;
    }
    int index = letter.charAt(0) - 'A';
    return index < Math.max(0, Math.min(optionCount, 26)) ? letter : null;
  }
}
