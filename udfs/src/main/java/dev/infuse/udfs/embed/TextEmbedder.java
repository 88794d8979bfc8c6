package dev.infuse.udfs.embed;

import java.util.List;

/**
 * A loaded sentence-embedding model: texts in, one unit-length vector per text out, in input order.
 *
 * <p>Thread safety: one instance is shared by every task of an executor ({@code ExecutorModels}),
 * so {@link #embed} must be safe to call from several threads at once.
 */
public interface TextEmbedder extends AutoCloseable {
  /**
   * What produced the vectors, as stored beside them: {@code all-minilm-l6-v2}, or {@code
   * <name>@<sha256 prefix>}.
   */
  String modelId();

  /** The length of every vector. */
  int dimension();

  /**
   * Embeds {@code texts}, batching and sorting by length internally.
   *
   * @return one L2-normalised vector per text, {@code result[i]} for {@code texts.get(i)}
   */
  float[][] embed(List<String> texts);

  /**
   * {@link #embed}, and how many encoder windows each text spans ({@link EmbeddedTexts#windows}),
   * so that a caller can count the texts longer than the window. An embedder without a window (a
   * test double) reports one window per text, which this default does.
   */
  default EmbeddedTexts embedAll(List<String> texts) {
    int[] windows = new int[texts.size()];
    java.util.Arrays.fill(windows, 1);
    return new EmbeddedTexts(embed(texts), windows);
  }

  @Override
  void close();
}
