package dev.infuse.udfs.behavior.score;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Vital signs and common labs read from text, with a small table of plausible ranges for the
 * model-free checker. A range is "could a living adult's record say this" (wide on purpose), not a
 * normal range: it catches typos and impossible values, never a clinical judgement.
 */
final class Readings {
  /**
   * One value found: the finding's name, the value as written (a blood pressure keeps its slash),
   * and the sentence it was read from.
   */
  record Reading(String finding, String value, double[] numbers, NumberedSentences.Sentence at) {
    /** The value with trailing zeros dropped, so 37.0 and 37 are one value. */
    String normalized() {
      StringBuilder out = new StringBuilder();
      for (double number : numbers) {
        if (out.length() > 0) {
          out.append('/');
        }
        out.append(BigDecimal.valueOf(number).stripTrailingZeros().toPlainString());
      }
      return out.toString();
    }
  }

  private record Rule(String finding, Pattern pattern, double low, double high, String unit) {}

  private static final String GAP = "[^0-9\\n.;]{0,25}?";
  private static final String NUM = "(\\d+(?:\\.\\d+)?)";

  /** The table: finding, how it is written, and the plausible range of its (first) number. */
  private static final List<Rule> RULES =
      List.of(
          rule("pulse", "(?:pulse(?!\\s+ox)|heart rate)", 20, 250, "/min"),
          rule("respiratory rate", "(?:respirations|respiratory rate)", 4, 70, "/min"),
          rule("oxygen saturation", "(?:oxygen saturation|O2 saturation|SpO2|SaO2)", 50, 100, "%"),
          rule("hemoglobin", "(?:hemoglobin|haemoglobin|Hb)", 2, 25, "g/dL"),
          rule("sodium", "(?:sodium|Na\\+)", 100, 185, "mEq/L"),
          rule("potassium", "(?:potassium|K\\+)", 1.5, 9, "mEq/L"),
          rule("glucose", "(?:glucose)", 10, 2000, "mg/dL"));

  private static final Pattern TEMPERATURE =
      Pattern.compile("(?i)\\btemperature\\b" + GAP + NUM + "\\s*°?\\s*([CF])?");
  private static final Pattern BLOOD_PRESSURE =
      Pattern.compile("(?i)\\bblood pressure\\b" + GAP + "(\\d+)\\s*/\\s*(\\d+)");

  private Readings() {}

  private static Rule rule(String finding, String names, double low, double high, String unit) {
    return new Rule(
        finding, Pattern.compile("(?i)\\b" + names + "(?![A-Za-z])" + GAP + NUM), low, high, unit);
  }

  /** Every reading in the sentences, in order. */
  static List<Reading> in(List<NumberedSentences.Sentence> sentences) {
    List<Reading> out = new ArrayList<>();
    for (NumberedSentences.Sentence sentence : sentences) {
      String text = sentence.text();
      Matcher t = TEMPERATURE.matcher(text);
      while (t.find()) {
        out.add(reading("temperature", t.group(1), sentence));
      }
      Matcher bp = BLOOD_PRESSURE.matcher(text);
      while (bp.find()) {
        out.add(reading("blood pressure", bp.group(1) + "/" + bp.group(2), sentence));
      }
      for (Rule rule : RULES) {
        Matcher m = rule.pattern().matcher(text);
        while (m.find()) {
          out.add(reading(rule.finding(), m.group(1), sentence));
        }
      }
    }
    return out;
  }

  /** Why the reading is implausible, or null when it is within the table's range. */
  static String implausible(Reading reading) {
    double first = reading.numbers()[0];
    switch (reading.finding()) {
      case "temperature":
        // Celsius up to 50, Fahrenheit above: notes write both.
        return first <= 50
            ? outside(reading, first, 25, 45, "°C")
            : outside(reading, first, 77, 113, "°F");
      case "blood pressure":
        double diastolic = reading.numbers()[1];
        String systolic = outside(reading, first, 50, 260, "mm Hg systolic");
        if (systolic != null) {
          return systolic;
        }
        if (diastolic < 20 || diastolic >= first) {
          return "the blood pressure "
              + reading.value()
              + " has a diastolic value outside 20 to the systolic value";
        }
        return null;
      default:
        for (Rule rule : RULES) {
          if (rule.finding().equals(reading.finding())) {
            return outside(reading, first, rule.low(), rule.high(), rule.unit());
          }
        }
        return null;
    }
  }

  private static String outside(Reading reading, double value, double low, double high, String u) {
    if (value >= low && value <= high) {
      return null;
    }
    return "the "
        + reading.finding()
        + " "
        + reading.value()
        + " is outside the plausible range "
        + plain(low)
        + "–"
        + plain(high)
        + " "
        + u;
  }

  private static String plain(double value) {
    return BigDecimal.valueOf(value).stripTrailingZeros().toPlainString();
  }

  private static Reading reading(String finding, String value, NumberedSentences.Sentence at) {
    String[] parts = value.split("/");
    double[] numbers = new double[parts.length];
    for (int i = 0; i < parts.length; i++) {
      numbers[i] = Double.parseDouble(parts[i]);
    }
    return new Reading(finding, value, numbers, at);
  }
}
