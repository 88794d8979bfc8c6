package dev.infuse.udfs.behavior.score;

import java.util.Objects;

/**
 * One number of an evaluation.
 *
 * @param name the metric, e.g. {@code macro_f1}, {@code precision}
 * @param subset what it is over: {@code all}, {@code type=proactive}, {@code category=omission}
 * @param value the value; NaN when its denominator is zero
 * @param n how many items the value is over (its denominator)
 */
public record Metric(String name, String subset, double value, long n) {
  public Metric {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(subset, "subset");
  }
}
