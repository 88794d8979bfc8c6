package dev.infuse.udfs.retrieve;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import dev.infuse.udfs.common.EnumNames;

/** The retrievers, by the name stored in {@code retrievals.retriever}. */
public enum Retriever {
  /** Lucene BM25 over the chunk text ({@link Bm25Index}). */
  BM25,
  /** Exact cosine over the chunks' unit embeddings ({@link DenseIndex}). */
  DENSE,
  /** Reciprocal-rank fusion of the BM25 and dense rankings ({@link ReciprocalRankFusion}). */
  HYBRID;

  /** The name in config and tables. */
  @JsonValue
  public String id() {
    return EnumNames.id(this);
  }

  /** As spelled in config, so messages read like the YAML. */
  @Override
  public String toString() {
    return id();
  }

  public boolean usesBm25() {
    return this != DENSE;
  }

  public boolean usesDense() {
    return this != BM25;
  }

  @JsonCreator
  public static Retriever fromName(String name) {
    return EnumNames.parse(Retriever.class, name);
  }
}
