package dev.infuse.udfs.dedup;

import dev.infuse.udfs.common.Keys;
import java.text.Normalizer;
import java.util.Locale;

/**
 * The normal form under which two texts count as exact duplicates, and its stable hash.
 *
 * <p>Steps, in order: Unicode NFKC (full-width and compatibility forms fold to their plain
 * letters), lowercase in the root locale, every punctuation or symbol character ({@code \p{P}},
 * {@code \p{S}}) replaced by a space, runs of whitespace collapsed to one space, leading and
 * trailing space removed. Punctuation becomes a space rather than nothing so that {@code
 * "end.Start"} keeps two words. So {@code "Hello, World!"} and {@code "hello world"} are the same
 * text; {@code "hello world 2"} is not (digits are kept).
 */
public final class TextNormalizer {
  private TextNormalizer() {}

  /** The normal form of {@code text}; {@code null} normalises to the empty string. */
  public static String normalize(String text) {
    if (text == null || text.isEmpty()) {
      return "";
    }
    String folded = Normalizer.normalize(text, Normalizer.Form.NFKC).toLowerCase(Locale.ROOT);
    StringBuilder out = new StringBuilder(folded.length());
    boolean pendingSpace = false;
    for (int i = 0; i < folded.length(); ) {
      int cp = folded.codePointAt(i);
      i += Character.charCount(cp);
      if (Character.isWhitespace(cp) || Character.isSpaceChar(cp) || isPunctuationOrSymbol(cp)) {
        pendingSpace = out.length() > 0;
        continue;
      }
      if (pendingSpace) {
        out.append(' ');
        pendingSpace = false;
      }
      out.appendCodePoint(cp);
    }
    return out.toString();
  }

  /**
   * SHA-256 hex of the normal form. 256 bits rather than 64 because exact dedup merges on equality
   * of this hash alone: at a billion texts a 64-bit hash would collide with a few per cent
   * probability.
   */
  public static String exactHash(String text) {
    return Keys.sha256Hex(normalize(text));
  }

  private static boolean isPunctuationOrSymbol(int cp) {
    switch (Character.getType(cp)) {
      case Character.CONNECTOR_PUNCTUATION:
      case Character.DASH_PUNCTUATION:
      case Character.START_PUNCTUATION:
      case Character.END_PUNCTUATION:
      case Character.INITIAL_QUOTE_PUNCTUATION:
      case Character.FINAL_QUOTE_PUNCTUATION:
      case Character.OTHER_PUNCTUATION:
      case Character.MATH_SYMBOL:
      case Character.CURRENCY_SYMBOL:
      case Character.MODIFIER_SYMBOL:
      case Character.OTHER_SYMBOL:
      case Character.CONTROL:
        return true;
      default:
        return false;
    }
  }
}
