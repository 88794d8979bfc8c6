package dev.infuse.udfs.decontam;

import java.text.Normalizer;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Splits a text into normalised words that remember where they came from.
 *
 * <p>A word is a maximal run of letters and digits ({@link Character#isLetterOrDigit(int)}, by code
 * point) in the original text; everything else (spaces, punctuation, symbols) only separates words.
 * Each word is then normalised with Unicode NFKC and lower-cased ({@link Locale#ROOT}), so "Ｆｉｒｅ",
 * "FIRE" and "fire" are the same word. The word's {@code charStart}/{@code charEnd} are UTF-16
 * indices into the original, un-normalised text, so a match maps back to exact Java (and Spark)
 * string offsets.
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
    while (i < length) {
      int codePoint = text.codePointAt(i);
      if (!Character.isLetterOrDigit(codePoint)) {
        i += Character.charCount(codePoint);
        continue;
      }
      int start = i;
      while (i < length && Character.isLetterOrDigit(codePoint = text.codePointAt(i))) {
        i += Character.charCount(codePoint);
      }
      words.add(new Word(normalize(text.substring(start, i)), start, i));
    }
    return words;
  }

  static String normalize(String word) {
    return Normalizer.normalize(word, Normalizer.Form.NFKC).toLowerCase(Locale.ROOT);
  }
}
