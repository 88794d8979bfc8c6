package dev.infuse.udfs.retrieve;

import java.io.Serializable;
import java.util.Objects;

/**
 * A chunk as the BM25 index sees it: its id, the document it belongs to (for scoping) and its text.
 */
public record ChunkText(String chunkId, String docId, String text) implements Serializable {
  public ChunkText {
    Objects.requireNonNull(chunkId, "chunkId");
    Objects.requireNonNull(docId, "docId");
    Objects.requireNonNull(text, "text");
  }
}
