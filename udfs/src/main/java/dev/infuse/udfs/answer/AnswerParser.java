package dev.infuse.udfs.answer;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Extracts the final answer from a model's output, robustly, and judges it against the gold answer.
 * A null result means the output held no answer of the expected kind: it is recorded as unparseable
 * and counted wrong. Every rule prefers the answer the model states last and most explicitly, since
 * chain of thought mentions other options and numbers on the way.
 *
 * <p>Options ({@link #option}), in order of preference:
 *
 * <ol>
 *   <li>an answer phrase: {@code The answer is (B)}, {@code Answer: d}, {@code final answer: **B**}
 *       (the last one wins);
 *   <li>a "correct option" phrase: {@code the correct option is C} (the last one);
 *   <li>a bold letter: {@code **C**} (the last one);
 *   <li>an output that starts with a letter: {@code B}, {@code B.}, {@code (B)}, {@code B) text};
 *   <li>the only parenthesised letter in the output: {@code I pick (C) since …};
 *   <li>the only option whose text the output quotes verbatim (case and spacing ignored; an option
 *       quoted inside a longer quoted option does not count).
 * </ol>
 *
 * Letters beyond the question's options are ignored. A lowercase letter counts only where it cannot
 * be a word ({@code answer is a bit unclear} holds no answer).
 *
 * <p>Numbers ({@link #number}): the last {@code \boxed{…}}, then GSM8K's {@code #### 42}, then the
 * last answer phrase ({@code The answer is $1,234.5}), then the last number in the output. The
 * result is canonical ({@link Numbers#canonical}): {@code -3.2%} is {@code -3.2}.
 *
 * <p>Labels ({@link #label}): the label after the last answer phrase, else the only label the
 * output names (stems count: {@code entails} is entailment, {@code contradicts} contradiction).
 *
 * <p>Free text ({@link #free}): the rest of the line after the last {@code Final answer:} (or
 * {@code Answer:}), else the last {@code \boxed{…}}, else the whole output, trimmed of markdown
 * emphasis.
 */
public final class AnswerParser {
  /**
   * What may follow a phrase before the letter: emphasis, spaces, then an uppercase letter, a
   * bracketed one, or a lone lowercase one.
   */
  private static final String LETTER =
      "(?-i)[\\*_\\s]*(?:([A-Z])(?![\\w'’])|[\\(\\[]\\s*([A-Za-z])\\s*[\\)\\]]"
          + "|([a-z])(?=\\s*(?:[.,;:!)\\]*_]|$)))";

  private static final Pattern ANSWER_LETTER =
      Pattern.compile(
          "(?i)(?:(?:final|correct|right|best)\\s+)?answer"
              + "(?:\\s+is)?(?:\\s+(?:therefore|thus|probably|likely|clearly))?\\s*[:=]?(?:\\s*(?:option|choice|letter))?"
              + "\\s*[:=]?\\s*"
              + LETTER,
          Pattern.MULTILINE);
  private static final Pattern OPTION_LETTER =
      Pattern.compile(
          "(?i)(?:correct|right|best)\\s+(?:option|choice)" + "(?:\\s+is)?\\s*[:=]?\\s*" + LETTER,
          Pattern.MULTILINE);
  private static final Pattern BOLD_LETTER =
      Pattern.compile("\\*\\*\\s*[\\(\\[]?([A-Za-z])[\\)\\]]?[.:]?\\s*\\*\\*");
  private static final Pattern LEADING_LETTER =
      Pattern.compile(
          "^\\s*(?:[\\(\\[]([A-Za-z])[\\)\\]]|([A-Z])(?:[.):](?:\\s|$)|\\s*$)|([a-z])(?:[.):](?:\\s|$)|\\s*$))");
  private static final Pattern PAREN_LETTER = Pattern.compile("[\\(\\[]([A-Z])[\\)\\]]");
  private static final Pattern ANSWER_PHRASE =
      Pattern.compile("(?i)(?:final\\s+)?answer(?:\\s+is)?\\s*[:=]?");
  private static final Pattern FINAL_LINE =
      Pattern.compile(
          "(?i)(?:final\\s+answer|answer)\\s*(?:is)?\\s*[:=]\\s*(.*)$", Pattern.MULTILINE);
  private static final Pattern HASHES = Pattern.compile("####\\s*(.+)");
  private static final Pattern FRAC =
      Pattern.compile("^\\s*(-?)\\\\[dt]?frac\\{\\s*(\\d+)\\s*}\\{\\s*(\\d+)\\s*}\\s*$");

  private AnswerParser() {}

  /**
   * The answer of {@code output} for a question of {@code answerType}: an option letter (mcq), a
   * label (label), a canonical number (numeric) or text (free); null when the output holds none.
   */
  public static String parse(String answerType, String output, List<String> options) {
    return switch (answerType) {
      case AnswerTypes.MCQ -> option(output, options);
      case AnswerTypes.LABEL -> label(output, options);
      case AnswerTypes.NUMERIC -> number(output);
      case AnswerTypes.FREE -> free(output);
      default ->
          throw new IllegalArgumentException(
              "answer_type: got " + answerType + ", expected one of " + AnswerTypes.ALL);
    };
  }

  /**
   * Whether {@code parsed} is right: null for free answers (the score job grades them) and when
   * there is no gold; false for an unparseable (null) answer. Letters and labels compare ignoring
   * case, numbers as numbers.
   */
  public static Boolean correct(String answerType, String parsed, String gold) {
    if (AnswerTypes.FREE.equals(answerType) || gold == null) {
      return null;
    }
    if (parsed == null) {
      return false;
    }
    if (AnswerTypes.NUMERIC.equals(answerType)) {
      return Numbers.equal(Numbers.parse(parsed), Numbers.parse(gold));
    }
    return parsed.trim().equalsIgnoreCase(gold.trim());
  }

  /** The option letter (uppercase) {@code output} chooses among {@code options}, or null. */
  public static String option(String output, List<String> options) {
    if (output == null || output.isBlank() || options == null || options.isEmpty()) {
      return null;
    }
    int count = options.size();
    String letter = lastLetter(ANSWER_LETTER, output, count);
    if (letter == null) {
      letter = lastLetter(OPTION_LETTER, output, count);
    }
    if (letter == null) {
      letter = lastLetter(BOLD_LETTER, output, count);
    }
    if (letter == null) {
      Matcher leading = LEADING_LETTER.matcher(output);
      if (leading.find()) {
        letter = valid(firstGroup(leading), count);
      }
    }
    if (letter == null) {
      Set<String> distinct = new LinkedHashSet<>();
      Matcher paren = PAREN_LETTER.matcher(output);
      while (paren.find()) {
        String candidate = valid(paren.group(1), count);
        if (candidate != null) {
          distinct.add(candidate);
        }
      }
      if (distinct.size() == 1) {
        letter = distinct.iterator().next();
      }
    }
    if (letter == null) {
      int quoted = quotedOption(output, options);
      if (quoted >= 0) {
        letter = AnswerTypes.letter(quoted);
      }
    }
    return letter;
  }

  /** The canonical number {@code output} answers with, or null when it holds no number. */
  public static String number(String output) {
    if (output == null || output.isBlank()) {
      return null;
    }
    String boxed = lastBoxed(output);
    BigDecimal value = boxed == null ? null : fraction(boxed);
    if (value == null && boxed != null) {
      value = Numbers.first(stripLatex(boxed));
    }
    if (value == null) {
      Matcher hashes = HASHES.matcher(output);
      String after = null;
      while (hashes.find()) {
        after = hashes.group(1);
      }
      value = after == null ? null : Numbers.first(after);
    }
    if (value == null) {
      Matcher phrase = ANSWER_PHRASE.matcher(output);
      int end = -1;
      while (phrase.find()) {
        end = phrase.end();
      }
      value = end < 0 ? null : Numbers.first(output.substring(end));
    }
    if (value == null) {
      value = Numbers.last(output);
    }
    return value == null ? null : Numbers.canonical(value);
  }

  /** The label (as spelled in {@code labels}) {@code output} names, or null. */
  public static String label(String output, List<String> labels) {
    if (output == null || output.isBlank() || labels == null || labels.isEmpty()) {
      return null;
    }
    String lower = output.toLowerCase(Locale.ROOT);
    Matcher phrase = ANSWER_PHRASE.matcher(output);
    int end = -1;
    while (phrase.find()) {
      end = phrase.end();
    }
    if (end >= 0) {
      String found = firstLabel(lower.substring(end), labels);
      if (found != null) {
        return found;
      }
    }
    Set<String> named = new LinkedHashSet<>();
    for (String label : labels) {
      if (Pattern.compile("\\b" + Pattern.quote(stem(label, labels))).matcher(lower).find()) {
        named.add(label);
      }
    }
    return named.size() == 1 ? named.iterator().next() : null;
  }

  /** The final answer text of a free-form output, or null when the output is blank. */
  public static String free(String output) {
    if (output == null || output.isBlank()) {
      return null;
    }
    Matcher line = FINAL_LINE.matcher(output);
    String answer = null;
    while (line.find()) {
      if (!line.group(1).isBlank()) {
        answer = line.group(1);
      }
    }
    if (answer == null) {
      String boxed = lastBoxed(output);
      answer = boxed != null ? stripLatex(boxed) : output;
    }
    String cleaned = answer.replaceAll("[\\*_`]+", "").strip();
    if (cleaned.endsWith(".")) {
      cleaned = cleaned.substring(0, cleaned.length() - 1).strip();
    }
    return cleaned.isEmpty() ? null : cleaned;
  }

  /** The content of the last {@code \boxed{…}}, braces balanced, or null. */
  static String lastBoxed(String text) {
    int at = text.lastIndexOf("\\boxed");
    while (at >= 0) {
      int open = text.indexOf('{', at);
      if (open >= 0 && text.substring(at + "\\boxed".length(), open).isBlank()) {
        int depth = 0;
        for (int i = open; i < text.length(); i++) {
          char c = text.charAt(i);
          if (c == '{') {
            depth++;
          } else if (c == '}' && --depth == 0) {
            return text.substring(open + 1, i);
          }
        }
      }
      at = at == 0 ? -1 : text.lastIndexOf("\\boxed", at - 1);
    }
    return null;
  }

  /**
   * {@code \\frac{3}{4}} as 0.75 (to 16 significant digits); null when {@code text} is not one
   * fraction.
   */
  private static BigDecimal fraction(String text) {
    Matcher frac = FRAC.matcher(text);
    if (!frac.matches() || new BigDecimal(frac.group(3)).signum() == 0) {
      return null;
    }
    BigDecimal value =
        new BigDecimal(frac.group(2))
            .divide(new BigDecimal(frac.group(3)), java.math.MathContext.DECIMAL64);
    return frac.group(1).isEmpty() ? value : value.negate();
  }

  /**
   * LaTeX in a boxed answer: {@code \$}, {@code \%}, {@code \,} thousands spaces, {@code \text{…}}.
   */
  private static String stripLatex(String text) {
    return text.replace("\\$", "$")
        .replace("\\%", "%")
        .replace("\\!", "")
        .replaceAll("(\\d)\\\\,(\\d)", "$1$2")
        .replaceAll("\\\\(?:text|mathrm|textbf)\\{([^}]*)}", "$1");
  }

  private static String lastLetter(Pattern pattern, String output, int count) {
    Matcher matcher = pattern.matcher(output);
    String last = null;
    while (matcher.find()) {
      String candidate = valid(firstGroup(matcher), count);
      if (candidate != null) {
        last = candidate;
      }
    }
    return last;
  }

  private static String firstGroup(Matcher matcher) {
    for (int g = 1; g <= matcher.groupCount(); g++) {
      if (matcher.group(g) != null) {
        return matcher.group(g);
      }
    }
    return null;
  }

  private static String valid(String letter, int count) {
    int index = AnswerTypes.index(letter);
    return index >= 0 && index < count ? AnswerTypes.letter(index) : null;
  }

  /**
   * The index of the only option quoted verbatim, ignoring options quoted as part of a longer one;
   * else -1.
   */
  private static int quotedOption(String output, List<String> options) {
    String text = normalize(output);
    List<Integer> found = new ArrayList<>();
    for (int i = 0; i < options.size(); i++) {
      String option = normalize(options.get(i));
      if (option.length() >= 2 && text.contains(option)) {
        found.add(i);
      }
    }
    List<Integer> maximal = new ArrayList<>();
    for (int i : found) {
      String option = normalize(options.get(i));
      boolean inside =
          found.stream()
              .anyMatch(
                  j ->
                      j != i
                          && normalize(options.get(j)).length() > option.length()
                          && normalize(options.get(j)).contains(option));
      if (!inside) {
        maximal.add(i);
      }
    }
    return maximal.size() == 1 ? maximal.get(0) : -1;
  }

  private static String normalize(String text) {
    return text.toLowerCase(Locale.ROOT)
        .replaceAll("[\\*_`\"“”]", "")
        .replaceAll("\\s+", " ")
        .strip()
        .replaceAll("[.!]$", "");
  }

  private static String firstLabel(String lowerText, List<String> labels) {
    int best = Integer.MAX_VALUE;
    String found = null;
    for (String label : labels) {
      Matcher matcher =
          Pattern.compile("\\b" + Pattern.quote(stem(label, labels))).matcher(lowerText);
      if (matcher.find() && matcher.start() < best) {
        best = matcher.start();
        found = label;
      }
    }
    return found;
  }

  /**
   * The shortest prefix (at least 6 letters) of a label that no other label shares, so inflections
   * match: {@code entail} for entailment, {@code contradict} would be {@code contra}.
   */
  private static String stem(String label, List<String> labels) {
    String lower = label.toLowerCase(Locale.ROOT);
    for (int n = Math.min(6, lower.length()); n <= lower.length(); n++) {
      String prefix = lower.substring(0, n);
      boolean shared =
          labels.stream()
              .anyMatch(
                  other ->
                      !other.equalsIgnoreCase(label)
                          && other.toLowerCase(Locale.ROOT).startsWith(prefix));
      if (!shared) {
        return prefix;
      }
    }
    return lower;
  }
}
