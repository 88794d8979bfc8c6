package dev.infuse.udfs.decontam;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import dev.infuse.udfs.common.EnumNames;

/** What happens to a training row that contains a benchmark n-gram. */
public enum DecontaminationMode {
  /** Cut the matched spans, widened by the margin, out of the text; keep the rest of the row. */
  REMOVE_SPAN,
  /** Drop the whole row. */
  DROP_ROW;

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

  @JsonCreator
  public static DecontaminationMode fromName(String name) {
    return EnumNames.parse(DecontaminationMode.class, name);
  }
}
