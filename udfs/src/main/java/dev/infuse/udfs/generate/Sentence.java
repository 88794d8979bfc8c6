package dev.infuse.udfs.generate;

/**
 * One sentence of a document.
 *
 * @param index position among the document's sentences, from 0
 * @param paragraph the paragraph (blank-line separated) it belongs to, from 0
 * @param start first char in the document
 * @param end one past the last char in the document
 * @param text the sentence with every whitespace run (hard line breaks, odd spacing) collapsed to
 *     one space
 */
public record Sentence(int index, int paragraph, int start, int end, String text) {
  /** Whitespace-separated words of {@link #text}. */
  public int wordCount() {
    return text.isEmpty() ? 0 : text.split(" ").length;
  }
}
