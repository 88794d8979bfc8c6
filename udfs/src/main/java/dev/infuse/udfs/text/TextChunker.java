package dev.infuse.udfs.text;

import java.util.List;

/** Cuts a document into chunks whose offsets index into it exactly. */
public interface TextChunker {
  /** The chunks of {@code document} in order; none if it is empty or only whitespace. */
  List<TextChunk> chunk(String document);
}
