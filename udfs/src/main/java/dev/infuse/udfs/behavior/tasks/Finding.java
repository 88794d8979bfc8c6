package dev.infuse.udfs.behavior.tasks;

import java.util.Objects;

/**
 * A finding with a value, anchored in the case line that states it, so that changing the value
 * changes exactly those characters of that line.
 *
 * @param line index of the {@link CaseLine} stating it
 * @param section the line's section (a dialogue's findings use {@code dialogue})
 * @param item what was measured or observed: {@code Heart Rate}, {@code potassium}, …
 * @param value the value as written ({@code 82}, {@code 95/60}, or a result's text)
 * @param unit the unit when known ({@code bpm}), else null
 * @param start where {@code value} starts in the line's text
 */
public record Finding(int line, String section, String item, String value, String unit, int start) {
  public Finding {
    Objects.requireNonNull(section, "section");
    Objects.requireNonNull(item, "item");
    Objects.requireNonNull(value, "value");
  }

  public int end() {
    return start + value.length();
  }

  /** The value with its unit, as a reader names it. */
  public String valueWithUnit() {
    return unit == null ? value : value + " " + unit;
  }

  Finding at(int newLine, int newStart) {
    return new Finding(newLine, section, item, value, unit, newStart);
  }

  Finding withValue(String changed) {
    return new Finding(line, section, item, changed, unit, start);
  }
}
