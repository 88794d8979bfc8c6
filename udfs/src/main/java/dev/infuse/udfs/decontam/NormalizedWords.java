package dev.infuse.udfs.decontam;

import java.text.Normalizer;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Splits a text into normalised words that remember where they came from, by the lm-eval Janitor's
 * rule: words are separated by whitespace only, and punctuation inside a word is deleted, not split
 * on ("don't" is "dont", "U.S." is "us", "well-known" is "wellknown").
 *
 * <p>A word is a maximal run of non-whitespace code points ({@link Character#isWhitespace} or
 * {@link Character#isSpaceChar}, so no-break spaces separate too). Its letters, digits and
 * combining marks are kept; everything else in it (punctuation and symbols, ASCII or not) is
 * deleted; a run with nothing left ("--", "…") is no word. The kept characters are then normalised
 * with Unicode NFKC and lower-cased ({@link Locale#ROOT}), so "Ｆｉｒｅ", "FIRE!" and "fire" are the
 * same word. The word's {@code charStart}/{@code charEnd} are the UTF-16 indices of its first and
 * just past its last kept character in the original, un-normalised text, so a match maps back to
 * exact Java (and Spark) string offsets.
 *
 * <p>Where this differs from the Janitor, on purpose: the Janitor deletes ASCII punctuation only
 * and lower-cases ASCII only; here every Unicode punctuation mark and symbol is deleted and case
 * and width are folded for every script, so curly quotes, dashes and full-width letters cannot hide
 * a copied question.
 */
public final class NormalizedWords {
  /**
   * One word: its normalised form and its span {@code [charStart, charEnd)} in the original text.
   */
  public record Word(String text, int charStart, int charEnd) {}

  private NormalizedWords() {}

  /** The words of {@code text} in order; empty for null or wordless text. */
  public static List<Word> of(String text) {
    List<Word> words = new ArrayList<>();
    if (text == null) {
      return words;
    }
    int i = 0;
    int length = text.length();
    StringBuilder kept = new StringBuilder();
    while (i < length) {
      int codePoint = text.codePointAt(i);
      if (isSpace(codePoint)) {
        i += Character.charCount(codePoint);
        continue;
      }
      kept.setLength(0);
      int first = -1;
      int last = -1;
      while (i < length && !isSpace(codePoint = text.codePointAt(i))) {
        int next = i + Character.charCount(codePoint);
        if (isKept(codePoint)) {
          kept.appendCodePoint(codePoint);
          if (first < 0) {
            first = i;
          }
          last = next;
        }
        i = next;
      }
      if (first >= 0) {
        words.add(new Word(normalize(kept.toString()), first, last));
      }
    }
    return words;
  }

  /** Whether the code point separates words. */
  public static boolean isSpace(int codePoint) {
    return Character.isWhitespace(codePoint) || Character.isSpaceChar(codePoint);
  }

  /** Whether the code point is kept inside a word: a letter, a digit or a combining mark. */
  public static boolean isKept(int codePoint) {
    if (Character.isLetterOrDigit(codePoint)) {
      return true;
    }
    int type = Character.getType(codePoint);
    return type == Character.NON_SPACING_MARK
        || type == Character.COMBINING_SPACING_MARK
        || type == Character.ENCLOSING_MARK;
  }

  static String normalize(String word) {
    return Normalizer.normalize(word, Normalizer.Form.NFKC).toLowerCase(Locale.ROOT);
  }
}
