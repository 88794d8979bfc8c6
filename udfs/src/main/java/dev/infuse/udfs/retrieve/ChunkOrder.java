package dev.infuse.udfs.retrieve;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import dev.infuse.udfs.common.EnumNames;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

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

  @JsonCreator
  public static ChunkOrder fromName(String name) {
    return EnumNames.parse(ChunkOrder.class, name);
  }
}
