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

  @Override
  void close();
}
