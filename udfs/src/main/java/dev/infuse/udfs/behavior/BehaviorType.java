package dev.infuse.udfs.behavior;

import dev.infuse.udfs.common.EnumNames;

/**
 * What a clinical assistant should do with a task (BehaviorSFT, arXiv 2505.21757): answer what was
 * asked, speak up about something wrong in the record, or answer without raising a flag.
 */
public enum BehaviorType {
  /** Answer the explicit query; nothing in the context calls for a flag. */
  REACTIVE("reactive"),
  /** Raise a flag, unprompted: an error, an omission or a conflict in the record. */
  PROACTIVE("proactive"),
  /** The case is complete and consistent: do not intervene. */
  RESTRAINT("restraint");

  private final String id;

  BehaviorType(String id) {
    this.id = id;
  }

  /** The name in config, tables and behavioural tokens. */
  public String id() {
    return id;
  }

  /**
   * The type named {@code name}.
   *
   * @throws IllegalArgumentException naming the value got and the valid ones
   */
  public static BehaviorType fromName(String name) {
    return EnumNames.parse(BehaviorType.class, name);
  }
}
