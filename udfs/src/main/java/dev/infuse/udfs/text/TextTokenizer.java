package dev.infuse.udfs.text;

/**
 * Splits text into the tokens a model would see, with where each token sits in the text.
 *
 * <p>Special tokens a model template adds ({@code [CLS]}, {@code [SEP]}, {@code <s>} …) are never
 * included: chunk budgets count the text's own tokens, and the embedder adds its template on top.
 */
public interface TextTokenizer extends AutoCloseable {

  /**
   * A stable name for this tokenizer, stored in the chunks table so a chunking can be reproduced.
   */
  String id();

  /** Every token of {@code text} in order, as [start, end) UTF-16 offsets into {@code text}. */
  TokenSpans spans(String text);

  /** The number of tokens of {@code text}: always {@code spans(text).size()}. */
  int count(String text);

  /** The token ids of {@code text}, without special tokens: what a language model is trained on. */
  int[] ids(String text);

  /**
   * The token ids of each text, as {@link #ids(String)} gives them; a tokenizer that can encode a
   * batch at once (in parallel, in native code) overrides this.
   */
  default int[][] ids(java.util.List<String> texts) {
    int[][] ids = new int[texts.size()][];
    for (int i = 0; i < ids.length; i++) {
      ids[i] = ids(texts.get(i));
    }
    return ids;
  }

  /**
   * Releases native memory; no checked exception, since there is nothing a caller could do with
   * one.
   */
  @Override
  void close();
}
