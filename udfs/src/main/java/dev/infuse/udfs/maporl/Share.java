package dev.infuse.udfs.maporl;

import dev.infuse.udfs.common.Names;
import java.util.Arrays;
import java.util.List;

/** Whose scores a turn's base reward counts (the reference's rule_agent_share). */
public enum Share {
  /** Later turns count the mean score of every agent, the agent itself included. */
  ALL("all"),
  /** Later turns count the agent's own score only. */
  INDIVIDUAL("individual");

  private final String id;

  Share(String id) {
    this.id = id;
  }

  /** The name in config and tables. */
  public String id() {
    return id;
  }

  /**
   * The constant named {@code name}.
   *
   * @throws IllegalArgumentException naming the value got, the valid ones and the nearest
   */
  public static Share fromName(String name) {
    for (Share value : values()) {
      if (value.id.equals(name)) {
        return value;
      }
    }
    List<String> ids = Arrays.stream(values()).map(Share::id).toList();
    StringBuilder message =
        new StringBuilder("got ").append(name).append(", expected ").append(Names.either(ids));
    Names.nearest(name, ids)
        .ifPresent(n -> message.append("; did you mean ").append(n).append('?'));
    throw new IllegalArgumentException(message.toString());
  }
}
