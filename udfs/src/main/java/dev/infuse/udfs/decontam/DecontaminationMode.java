package dev.infuse.udfs.decontam;

import java.util.Locale;

/** What happens to a training row that contains a benchmark n-gram. */
public enum DecontaminationMode {
  /** Cut the matched spans, widened by the margin, out of the text; keep the rest of the row. */
  REMOVE_SPAN,
  /** Drop the whole row. */
  DROP_ROW;

  /** The option's spelling: {@code remove_span} or {@code drop_row}. */
  public String id() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** Parses {@code remove_span} or {@code drop_row}, naming the option in the error. */
  public static DecontaminationMode parse(String value) {
    for (DecontaminationMode mode : values()) {
      if (mode.id().equals(value)) {
        return mode;
      }
    }
    throw new IllegalArgumentException(
        "decontamination mode: got '" + value + "', expected remove_span or drop_row");
  }
}
