package dev.infuse.udfs.generate;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * A rule-based sentence splitter for English prose as it arrives from benchmarks: hard-wrapped
 * lines, runs of spaces, quoted dialogue, abbreviations (Mr., Dr., e.g., U.S.), initials and
 * decimals. A blank line always ends a sentence; a single line break is just a space. Offsets point
 * into the original text so callers can quote exact spans.
 */
public final class Sentences {
  private static final Set<String> ABBREVIATIONS =
      Set.of(
          "mr", "mrs", "ms", "dr", "prof", "st", "jr", "sr", "gen", "col", "capt", "cpt", "lt",
          "sgt", "maj", "cmdr", "adm", "rev", "hon", "gov", "sen", "rep", "pres", "mt", "ft", "no",
          "nos", "vol", "fig", "figs", "pp", "p", "vs", "cf", "approx", "dept", "est", "inc", "ltd",
          "co", "corp", "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct",
          "nov", "dec", "mon", "tue", "wed", "thu", "fri", "sat", "sun", "messrs", "mme", "mlle",
          "av", "ave", "blvd", "rd", "ph", "eq", "al");
  private static final String CLOSERS = "\"'”’)]»";
  private static final String OPENERS = "\"'“‘([«";

  private Sentences() {}

  /** The sentences of {@code text}, in order; blank text has none. */
  public static List<Sentence> split(String text) {
    List<Sentence> sentences = new ArrayList<>();
    if (text == null) {
      return sentences;
    }
    int paragraph = 0;
    int at = 0;
    int length = text.length();
    while (at < length) {
      int paragraphEnd = nextBlankLine(text, at);
      int before = sentences.size();
      splitParagraph(text, at, paragraphEnd, paragraph, sentences);
      if (sentences.size() > before) {
        paragraph++;
      }
      at = paragraphEnd;
      while (at < length && isSpace(text.charAt(at))) {
        at++;
      }
    }
    return sentences;
  }

  /** {@code text} with whitespace runs collapsed to one space and trimmed. */
  public static String normalize(String text) {
    StringBuilder out = new StringBuilder(text.length());
    boolean space = false;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (isSpace(c)) {
        space = out.length() > 0;
      } else {
        if (space) {
          out.append(' ');
          space = false;
        }
        out.append(c);
      }
    }
    return out.toString();
  }

  private static void splitParagraph(
      String text, int from, int to, int paragraph, List<Sentence> out) {
    int start = from;
    for (int i = from; i < to; i++) {
      char c = text.charAt(i);
      if (c != '.' && c != '!' && c != '?' && c != '…') {
        continue;
      }
      int j = i + 1;
      while (j < to && ".!?…".indexOf(text.charAt(j)) >= 0) {
        j++;
      }
      boolean single = c == '.' && j == i + 1;
      while (j < to && CLOSERS.indexOf(text.charAt(j)) >= 0) {
        j++;
      }
      int k = j;
      while (k < to && isSpace(text.charAt(k))) {
        k++;
      }
      boolean boundary;
      if (k >= to) {
        boundary = true;
      } else if (k == j) {
        boundary = false;
      } else {
        char next = text.charAt(k);
        boundary =
            Character.isUpperCase(next) || Character.isDigit(next) || OPENERS.indexOf(next) >= 0;
      }
      if (boundary && single && k < to && isAbbreviation(text, from, i)) {
        boundary = false;
      }
      if (boundary) {
        add(text, start, j, paragraph, out);
        start = k;
        i = k - 1;
      }
    }
    add(text, start, to, paragraph, out);
  }

  /**
   * Whether the word ending just before the period at {@code dot} is an abbreviation or an initial.
   */
  private static boolean isAbbreviation(String text, int from, int dot) {
    int w = dot;
    while (w > from && (Character.isLetter(text.charAt(w - 1)) || text.charAt(w - 1) == '.')) {
      w--;
    }
    String word = text.substring(w, dot);
    if (word.isEmpty()) {
      return false;
    }
    if (word.indexOf('.') >= 0) {
      return word.matches("(\\p{L}\\.)+\\p{L}");
    }
    if (word.length() == 1 && Character.isUpperCase(word.charAt(0))) {
      return true;
    }
    return ABBREVIATIONS.contains(word.toLowerCase(Locale.ROOT));
  }

  private static void add(String text, int start, int end, int paragraph, List<Sentence> out) {
    while (start < end && isSpace(text.charAt(start))) {
      start++;
    }
    while (end > start && isSpace(text.charAt(end - 1))) {
      end--;
    }
    if (end > start) {
      out.add(
          new Sentence(out.size(), paragraph, start, end, normalize(text.substring(start, end))));
    }
  }

  /**
   * Where the next blank line (break, optional spaces, break) at or after {@code from} starts, or
   * the end.
   */
  private static int nextBlankLine(String text, int from) {
    int at = text.indexOf('\n', from);
    while (at >= 0) {
      int k = at + 1;
      while (k < text.length() && text.charAt(k) != '\n' && isSpace(text.charAt(k))) {
        k++;
      }
      if (k < text.length() && text.charAt(k) == '\n') {
        return at;
      }
      at = text.indexOf('\n', at + 1);
    }
    return text.length();
  }

  static boolean isSpace(char c) {
    return Character.isWhitespace(c) || c == '\u00a0';
  }
}
