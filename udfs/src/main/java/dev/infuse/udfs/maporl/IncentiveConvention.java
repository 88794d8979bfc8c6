package dev.infuse.udfs.maporl;

import dev.infuse.udfs.common.Names;
import java.util.Arrays;
import java.util.List;

/** Which signs the forward (influence on others) incentive terms take; see docs/MAPORL.md. */
public enum IncentiveConvention {
  /**
   * The paper's signs: moving the others to the right answer earns beta, to a wrong one costs beta.
   */
  PAPER("paper"),
  /** The reference code's bonus_rule: its four forward terms have the opposite signs. */
  REFERENCE_CODE("reference-code");

  private final String id;

  IncentiveConvention(String id) {
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
  public static IncentiveConvention fromName(String name) {
    for (IncentiveConvention value : values()) {
      if (value.id.equals(name)) {
        return value;
      }
    }
    List<String> ids = Arrays.stream(values()).map(IncentiveConvention::id).toList();
    StringBuilder message =
        new StringBuilder("got ").append(name).append(", expected ").append(Names.either(ids));
    Names.nearest(name, ids)
        .ifPresent(n -> message.append("; did you mean ").append(n).append('?'));
    throw new IllegalArgumentException(message.toString());
  }
}
