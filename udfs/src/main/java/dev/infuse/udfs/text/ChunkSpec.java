package dev.infuse.udfs.text;

/**
 * How documents are cut into chunks.
 *
 * @param maxTokens the most tokens a chunk may hold, at least {@value #MIN_MAX_TOKENS}
 * @param overlapTokens how many tokens a chunk repeats from the end of the one before it; under
 *     half of {@code maxTokens}, so every chunk still moves forward by more than half a chunk
 */
public record ChunkSpec(int maxTokens, int overlapTokens) implements java.io.Serializable {
  /** EntiGraph's RAG recipe: 1024-token chunks without overlap. */
  public static final int DEFAULT_MAX_TOKENS = 1024;

  public static final int DEFAULT_OVERLAP_TOKENS = 0;
  public static final int MIN_MAX_TOKENS = 16;

  public ChunkSpec {
    if (maxTokens < MIN_MAX_TOKENS) {
      throw new IllegalArgumentException(
          "chunk.max_tokens: got " + maxTokens + ", expected an integer >= " + MIN_MAX_TOKENS);
    }
    if (overlapTokens < 0 || overlapTokens >= maxTokens / 2) {
      throw new IllegalArgumentException(
          "chunk.overlap_tokens: got "
              + overlapTokens
              + ", expected an integer >= 0 and < "
              + maxTokens / 2
              + " (half of chunk.max_tokens "
              + maxTokens
              + ")");
    }
  }

  /** 1024 tokens, no overlap. */
  public static ChunkSpec defaults() {
    return new ChunkSpec(DEFAULT_MAX_TOKENS, DEFAULT_OVERLAP_TOKENS);
  }
}
