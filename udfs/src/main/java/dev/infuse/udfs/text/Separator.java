package dev.infuse.udfs.text;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One level of the character chunker's recursive split ({@link CharacterChunker}), by its config
 * name. The text is cut <em>before</em> each occurrence, so a piece starts with the separator that
 * preceded it (LangChain's {@code keep_separator=True}) and pieces rebuild the text exactly.
 */
public enum Separator {
  /** A blank line, {@code "\n\n"}. */
  PARAGRAPH("paragraph", Pattern.compile("\n\n")),
  /** A line break, {@code "\n"}. */
  LINE("line", Pattern.compile("\n")),
  /**
   * The spaces after a sentence end: {@code . ! ? …}, then up to two closing quotes or brackets.
   * Not one of LangChain's defaults; Infuse's own level, for users who want it.
   */
  SENTENCE("sentence", Pattern.compile("(?<=[.!?\u2026][\"')\\]\u2019\u201d]{0,2}) +")),
  /** A space, {@code " "}. */
  WORD("word", Pattern.compile(" ")),
  /** Between any two characters (code points): the last level, which always fits. */
  CHAR("char", null);

  /**
   * LangChain's {@code RecursiveCharacterTextSplitter} default, {@code ["\n\n", "\n", " ", ""]},
   * which EntiGraph's RAG baseline uses.
   */
  public static final List<Separator> LANGCHAIN_DEFAULT = List.of(PARAGRAPH, LINE, WORD, CHAR);

  private final String id;
  private final Pattern pattern;

  Separator(String id, Pattern pattern) {
    this.id = id;
    this.pattern = pattern;
  }

  /** The config name: paragraph, line, sentence, word or char. */
  public String id() {
    return id;
  }

  /** The separator a config name means. */
  public static Separator of(String name) {
    for (Separator separator : values()) {
      if (separator.id.equals(name == null ? null : name.trim().toLowerCase(Locale.ROOT))) {
        return separator;
      }
    }
    throw new IllegalArgumentException(
        "separator: got '" + name + "', expected one of " + names(List.of(values())));
  }

  /** Config names joined by commas, as stored in {@code chunks.separators}. */
  public static String names(List<Separator> separators) {
    return String.join(",", separators.stream().map(Separator::id).toList());
  }

  /** True if this separator occurs in {@code text[from, to)}; always true for {@link #CHAR}. */
  boolean occursIn(String text, int from, int to) {
    return pattern == null || pattern.matcher(text).region(from, to).find();
  }

  /**
   * The non-empty pieces of {@code text[from, to)} as [start, end) offsets, cut before each
   * occurrence of this separator; for {@link #CHAR}, one piece per code point.
   */
  List<int[]> pieces(String text, int from, int to) {
    List<int[]> pieces = new ArrayList<>();
    if (pattern == null) {
      for (int i = from; i < to; ) {
        int next = Math.min(to, i + Character.charCount(text.codePointAt(i)));
        pieces.add(new int[] {i, next});
        i = next;
      }
      return pieces;
    }
    Matcher matcher = pattern.matcher(text).region(from, to);
    int start = from;
    while (matcher.find()) {
      if (matcher.start() > start) {
        pieces.add(new int[] {start, matcher.start()});
        start = matcher.start();
      }
    }
    if (to > start) {
      pieces.add(new int[] {start, to});
    }
    return pieces;
  }
}
