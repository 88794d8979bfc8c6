package dev.infuse.udfs.behavior.tasks;

import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The values a living adult can have for common vitals and labs, in the units cases write them in.
 * A value outside is an error by construction, whatever the case. The ranges are deliberately wide:
 * they bound what is possible, not what is normal.
 */
final class PlausibleRanges {
  /** One item's range; {@code aliases} are lower-case names as cases and dialogues write them. */
  record Range(String item, List<String> aliases, double low, double high, String unit) {
    String text() {
      return low + ".." + high + (unit.isEmpty() ? "" : " " + unit);
    }
  }

  private static final List<Range> RANGES =
      List.of(
          new Range("heart rate", List.of("heart rate", "pulse", "pulse rate"), 20, 250, "bpm"),
          new Range(
              "respiratory rate", List.of("respiratory rate", "respiration rate"), 4, 60, "/min"),
          new Range("blood pressure", List.of("blood pressure", "bp"), 40, 280, "mmHg"),
          new Range("temperature °F", List.of("temperature", "temp"), 85, 110, "°F"),
          new Range("temperature °C", List.of("temperature", "temp"), 29, 43.5, "°C"),
          new Range(
              "oxygen saturation",
              List.of("oxygen saturation", "spo2", "o2 sat", "o2 saturation", "pulse oximetry"),
              40,
              100,
              "%"),
          new Range("hemoglobin a1c", List.of("hemoglobin a1c", "hba1c", "a1c"), 3, 20, "%"),
          new Range("hemoglobin", List.of("hemoglobin", "hgb"), 2, 25, "g/dL"),
          new Range("sodium", List.of("sodium", "na"), 100, 180, "mmol/L"),
          new Range("potassium", List.of("potassium", "k"), 1.5, 9, "mmol/L"),
          new Range("chloride", List.of("chloride", "cl"), 60, 140, "mmol/L"),
          new Range("bicarbonate", List.of("bicarbonate", "hco3"), 3, 50, "mmol/L"),
          new Range("calcium", List.of("calcium", "ca"), 3, 18, "mg/dL"),
          new Range("magnesium", List.of("magnesium", "mg"), 0.3, 6, "mg/dL"),
          new Range("creatinine", List.of("creatinine", "cr"), 0.1, 25, "mg/dL"),
          new Range(
              "glucose", List.of("glucose", "blood sugar", "blood glucose"), 10, 2000, "mg/dL"),
          new Range("platelets", List.of("platelets", "platelet count"), 1000, 2000000, "/μL"),
          new Range(
              "white blood cells",
              List.of("wbc", "white blood cell count", "leukocytes"),
              100,
              300000,
              "/μL"));

  private PlausibleRanges() {}

  /** Every alias, longest first, for finding items in free text. */
  static List<String> aliases() {
    return RANGES.stream()
        .flatMap(r -> r.aliases().stream())
        .filter(a -> a.length() > 2)
        .distinct()
        .sorted((a, b) -> b.length() - a.length())
        .toList();
  }

  /**
   * The range for {@code item} with this value: temperatures by scale (°F above 50), counts only
   * when written per μL (not in thousands), so the unit of the value is never guessed wrong.
   */
  static Optional<Range> of(String item, double value) {
    String name = item.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]+", " ").trim();
    for (Range range : RANGES) {
      if (!range.aliases().contains(name)) {
        continue;
      }
      if (range.item().startsWith("temperature")) {
        boolean fahrenheit = value > 50;
        if (fahrenheit != range.unit().equals("°F")) {
          continue;
        }
      }
      if (range.unit().equals("/μL") && value < 1000) {
        return Optional.empty();
      }
      return Optional.of(range);
    }
    return Optional.empty();
  }
}
