package dev.infuse.udfs.retrieve;

import java.io.Serializable;
import java.util.Comparator;

/**
 * One retrieved chunk and its score under one retriever (BM25 score, cosine, or fused RRF score).
 * Higher is better.
 */
public record ScoredChunk(String chunkId, String docId, double score) implements Serializable {
  /**
   * Best first: higher score, then smaller chunk id. The tie-break makes every ranking a function
   * of the scores alone, so an index split into shards ranks exactly as one index does (Lucene
   * would break ties by its internal doc number, which depends on how the index was built).
   */
  public static final Comparator<ScoredChunk> BEST_FIRST =
      Comparator.comparingDouble(ScoredChunk::score).reversed().thenComparing(ScoredChunk::chunkId);
}
