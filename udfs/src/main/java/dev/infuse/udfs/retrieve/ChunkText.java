package dev.infuse.udfs.retrieve;

import java.io.Serializable;
import java.util.Objects;

/**
 * A chunk as the BM25 index sees it: its id, the document it belongs to (for scoping) and its text,
 * which is the {@linkplain #indexed indexed text}: the chunk's metadata prefix, if any, then its
 * text.
 */
public record ChunkText(String chunkId, String docId, String text) implements Serializable {
  public ChunkText {
    Objects.requireNonNull(chunkId, "chunkId");
    Objects.requireNonNull(docId, "docId");
    Objects.requireNonNull(text, "text");
  }

  /**
   * What is indexed, embedded and shown as context for a chunk: its {@code chunks.context_prefix}
   * (the rendered {@code chunk.prefix_template}, which ends with its own separator) followed by its
   * {@code chunks.text}; the text alone when the prefix is null. BM25 indexing and dense embedding
   * use it through its column form, {@code ChunkJob.indexedText()} (a test holds the two equal),
   * and answer contexts should use it too, so that the reader sees what retrieval matched.
   */
  public static String indexed(String prefix, String text) {
    Objects.requireNonNull(text, "text");
    return prefix == null ? text : prefix + text;
  }
}
