package dev.infuse.udfs.maporl;

import dev.infuse.udfs.common.Names;
import java.util.Arrays;
import java.util.List;

/** How far ahead a turn's base reward looks (the reference's rule_horizon). */
public enum Horizon {
  /**
   * The discounted average of the agent's own score now and the (shared or own) scores of later
   * turns.
   */
  DISCOUNTED_SUM("discounted_sum"),
  /** The score of the episode's last turn (shared or own), whatever the turn. */
  LAST("last"),
  /** The score of this turn only (shared or own). */
  CURRENT("current");

  private final String id;

  Horizon(String id) {
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
  public static Horizon fromName(String name) {
    for (Horizon value : values()) {
      if (value.id.equals(name)) {
        return value;
      }
    }
    List<String> ids = Arrays.stream(values()).map(Horizon::id).toList();
    StringBuilder message =
        new StringBuilder("got ").append(name).append(", expected ").append(Names.either(ids));
    Names.nearest(name, ids)
        .ifPresent(n -> message.append("; did you mean ").append(n).append('?'));
    throw new IllegalArgumentException(message.toString());
  }
}
