package dev.infuse.udfs.text;

/**
 * What kind of break a chunk would end on, best first: the chunker takes the best kind it can find
 * among the positions its token budget allows.
 */
enum BoundaryKind {
  /** Before a blank line ({@code \n\s*\n}), or at the end of the document. */
  PARAGRAPH,
  /** After {@code . ! ? …} and any closing quotes or brackets, before whitespace. */
  SENTENCE,
  /** Before whitespace holding one line break. */
  LINE,
  /** Before any other whitespace. */
  WHITESPACE,
  /** Inside a run of non-whitespace: a cut between two tokens of one word. */
  NONE;

  private static final String SENTENCE_ENDERS = ".!?\u2026";
  private static final String CLOSERS = "\"')]}\u2019\u201d\u00bb";
  private static final char LINE_SEPARATOR = '\u2028';
  private static final char PARAGRAPH_SEPARATOR = '\u2029';

  /**
   * The kind of break at {@code end} for a chunk whose text starts at {@code from}; {@code end} is
   * just past the chunk's last non-whitespace char.
   */
  static BoundaryKind at(String text, int from, int end) {
    if (end >= text.length()) {
      return PARAGRAPH;
    }
    if (!isWhitespace(text.charAt(end))) {
      return NONE;
    }
    int lineBreaks = 0;
    for (int i = end; i < text.length() && lineBreaks < 2; i++) {
      char c = text.charAt(i);
      if (!isWhitespace(c)) {
        break;
      }
      if (c == PARAGRAPH_SEPARATOR) {
        lineBreaks = 2;
      } else if (c == '\n' || c == LINE_SEPARATOR) {
        lineBreaks++;
      } else if (c == '\r' && (i + 1 == text.length() || text.charAt(i + 1) != '\n')) {
        lineBreaks++;
      }
    }
    if (lineBreaks >= 2) {
      return PARAGRAPH;
    }
    if (endsSentence(text, from, end)) {
      return SENTENCE;
    }
    return lineBreaks == 1 ? LINE : WHITESPACE;
  }

  /**
   * True if {@code text[from, end)} ends with a sentence ender, maybe followed by closing quotes.
   */
  static boolean endsSentence(String text, int from, int end) {
    int i = end - 1;
    while (i >= from && CLOSERS.indexOf(text.charAt(i)) >= 0) {
      i--;
    }
    return i >= from && SENTENCE_ENDERS.indexOf(text.charAt(i)) >= 0;
  }

  /** Whitespace as chunks see it: Java whitespace plus no-break spaces, which prose often holds. */
  static boolean isWhitespace(char c) {
    return Character.isWhitespace(c) || Character.isSpaceChar(c);
  }

  /** The first non-whitespace offset in {@code [from, to)}, or {@code to}. */
  static int skipWhitespace(String text, int from, int to) {
    int i = from;
    while (i < to && isWhitespace(text.charAt(i))) {
      i++;
    }
    return i;
  }

  /** The offset just past the last non-whitespace char of {@code [from, to)}, or {@code from}. */
  static int trimEnd(String text, int from, int to) {
    int i = to;
    while (i > from && isWhitespace(text.charAt(i - 1))) {
      i--;
    }
    return i;
  }
}
