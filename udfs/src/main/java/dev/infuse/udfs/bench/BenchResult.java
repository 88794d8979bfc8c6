package dev.infuse.udfs.bench;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Locale;

/**
 * One line of the {@code bench} table: a piece of work, Infuse's figure next to a reference figure
 * measured in the same run, the compared value (a ratio, seconds, or a multiple of linear) and the
 * goal it is held to.
 *
 * @param work what was measured, e.g. "tokenize + pack, 20k texts"
 * @param infuse Infuse's figure as a reader wants it, e.g. "8,412 texts/s"
 * @param reference the reference figure, e.g. "raw batchEncode 10,233 texts/s"; "" when the goal is
 *     absolute (seconds, memory)
 * @param value the compared value
 * @param unit how {@code value} reads: "ratio", "x", "s", "x linear", "GB"
 * @param atLeast true when the goal is {@code value >= goal}, false when {@code value <= goal}
 * @param goal the threshold
 * @param note anything a reader needs to trust the figure (sizes, medians, the machine)
 */
// pass, goalText and valueText are written to the JSON for readers of bench.json (Jackson sees
// only a record's components unless told), and ignored on the way back in.
@JsonIgnoreProperties(ignoreUnknown = true)
public record BenchResult(
    String work,
    String infuse,
    String reference,
    double value,
    String unit,
    boolean atLeast,
    double goal,
    String note) {

  /** Whether the value meets the goal. */
  @JsonProperty("pass")
  public boolean pass() {
    return atLeast ? value >= goal : value <= goal;
  }

  /** The goal as the table shows it, e.g. "≥ 0.90 ratio". */
  @JsonProperty("goalText")
  public String goalText() {
    return (atLeast ? "≥ " : "≤ ") + number(goal) + " " + unit;
  }

  /** The value as the table shows it. */
  @JsonProperty("valueText")
  public String valueText() {
    return number(value) + " " + unit;
  }

  private static String number(double x) {
    return Math.abs(x) >= 100
        ? String.format(Locale.ROOT, "%.0f", x)
        : String.format(Locale.ROOT, "%.2f", x);
  }
}
