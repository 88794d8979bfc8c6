package dev.infuse.udfs.retrieve;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/** The retrievers, by the name stored in {@code retrievals.retriever}. */
public enum Retriever {
  /** Lucene BM25 over the chunk text ({@link Bm25Index}). */
  BM25,
  /** Exact cosine over the chunks' unit embeddings ({@link DenseIndex}). */
  DENSE,
  /** Reciprocal-rank fusion of the BM25 and dense rankings ({@link ReciprocalRankFusion}). */
  HYBRID;

  public String id() {
    return name().toLowerCase(Locale.ROOT);
  }

  public boolean usesBm25() {
    return this != DENSE;
  }

  public boolean usesDense() {
    return this != BM25;
  }

  public static Retriever parse(String name) {
    for (Retriever retriever : values()) {
      if (retriever.id().equals(name)) {
        return retriever;
      }
    }
    throw new IllegalArgumentException("retriever: got " + name + ", expected one of " + names());
  }

  public static String names() {
    return Arrays.stream(values()).map(Retriever::id).collect(Collectors.joining(", "));
  }
}
