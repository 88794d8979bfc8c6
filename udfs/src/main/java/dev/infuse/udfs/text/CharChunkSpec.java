package dev.infuse.udfs.text;

import java.util.List;
import java.util.Objects;

/**
 * How the character chunker ({@link CharacterChunker}) cuts documents.
 *
 * @param maxChars the most characters (Unicode code points, as Python's {@code len} counts) a chunk
 *     may hold, at least {@value #MIN_MAX_CHARS}
 * @param overlapChars up to how many characters of the previous chunk's last pieces a chunk repeats
 *     (LangChain's {@code chunk_overlap}); {@code 0 <= overlapChars < maxChars}
 * @param separators the recursive split levels, best first; each at most once, and ending with
 *     {@link Separator#CHAR} so that every chunk fits
 */
public record CharChunkSpec(int maxChars, int overlapChars, List<Separator> separators)
    implements java.io.Serializable {
  /** EntiGraph's RAG baseline: 1024 characters without overlap. */
  public static final int DEFAULT_MAX_CHARS = 1024;

  public static final int DEFAULT_OVERLAP_CHARS = 0;
  public static final int MIN_MAX_CHARS = 16;

  public CharChunkSpec {
    Objects.requireNonNull(separators, "separators");
    if (maxChars < MIN_MAX_CHARS) {
      throw new IllegalArgumentException(
          "chunk.max_chars: got " + maxChars + ", expected an integer >= " + MIN_MAX_CHARS);
    }
    if (overlapChars < 0 || overlapChars >= maxChars) {
      throw new IllegalArgumentException(
          "chunk.overlap_chars: got "
              + overlapChars
              + ", expected an integer >= 0 and < chunk.max_chars ("
              + maxChars
              + ")");
    }
    String problem = separatorsProblem(separators);
    if (problem != null) {
      throw new IllegalArgumentException("chunk.separators: " + problem);
    }
    separators = List.copyOf(separators);
  }

  /** 1024 characters, no overlap, LangChain's default separators: EntiGraph's settings. */
  public static CharChunkSpec defaults() {
    return new CharChunkSpec(DEFAULT_MAX_CHARS, DEFAULT_OVERLAP_CHARS, Separator.LANGCHAIN_DEFAULT);
  }

  /** What is wrong with a separator list, as "got …, expected …"; null when it is usable. */
  public static String separatorsProblem(List<Separator> separators) {
    String got = "got [" + Separator.names(separators) + "]";
    if (separators.isEmpty() || separators.get(separators.size() - 1) != Separator.CHAR) {
      return got + ", expected a list ending with char (so that every chunk fits)";
    }
    if (separators.stream().distinct().count() != separators.size()) {
      return got + ", expected each separator at most once";
    }
    return null;
  }
}
