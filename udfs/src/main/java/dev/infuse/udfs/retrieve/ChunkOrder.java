package dev.infuse.udfs.retrieve;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * The order in which retrieved chunks go into a prompt. Retrieval returns chunks best first;
 * EntiGraph's RAG recipe puts the best chunk last, closest to the question, because models attend
 * most to the end of a long context.
 */
public enum ChunkOrder {
  /** The best chunk first, as ranked. */
  BEST_FIRST,
  /** The ranking reversed: the best chunk last, right before the question (EntiGraph). */
  BEST_LAST;

  public String id() {
    return name().toLowerCase(Locale.ROOT);
  }

  /**
   * The chunks in prompt order.
   *
   * @param bestFirst chunks as retrieved, best first (rank 1 first)
   */
  public <T> List<T> arrange(List<T> bestFirst) {
    List<T> out = new ArrayList<>(bestFirst);
    if (this == BEST_LAST) {
      Collections.reverse(out);
    }
    return out;
  }

  /** {@code best_first} or {@code best_last}. */
  public static ChunkOrder parse(String name) {
    for (ChunkOrder order : values()) {
      if (order.id().equals(name)) {
        return order;
      }
    }
    throw new IllegalArgumentException("chunk order: got " + name + ", expected one of " + names());
  }

  public static String names() {
    return Arrays.stream(values()).map(ChunkOrder::id).collect(Collectors.joining(", "));
  }
}
