package dev.infuse.jobs.retrieve;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import dev.infuse.udfs.common.EnumNames;

/** What a question searches ({@code retrieve.scoping}). */
public enum Scoping {
  /**
   * Its document when it has one (QuALITY, LongHealth), else its benchmark's corpus (FinanceBench).
   */
  AUTO,
  /** Its own document; a question without one is quarantined. */
  DOCUMENT,
  /** Its benchmark's whole corpus. */
  CORPUS;

  @JsonValue
  public String id() {
    return EnumNames.id(this);
  }

  /** As spelled in config, so messages read like the YAML. */
  @Override
  public String toString() {
    return id();
  }

  @JsonCreator
  public static Scoping fromName(String name) {
    return EnumNames.parse(Scoping.class, name);
  }
}
