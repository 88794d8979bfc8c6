package dev.infuse.jobs.report;

import java.util.Locale;

/**
 * How the report writes numbers and text into HTML; report.json keeps the full-precision values.
 */
public final class ReportFormat {
  /** Shown for a missing (null or NaN) number. */
  public static final String NONE = "–";

  private ReportFormat() {}

  /** Escapes text for HTML element content and double- or single-quoted attribute values. */
  public static String html(String text) {
    if (text == null) {
      return "";
    }
    StringBuilder out = new StringBuilder(text.length() + 16);
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      switch (c) {
        case '&' -> out.append("&amp;");
        case '<' -> out.append("&lt;");
        case '>' -> out.append("&gt;");
        case '"' -> out.append("&quot;");
        case '\'' -> out.append("&#39;");
        default -> out.append(c);
      }
    }
    return out.toString();
  }

  /** A metric, difference or coefficient: four decimals. */
  public static String number(Double value) {
    return value == null || value.isNaN() ? NONE : String.format(Locale.ROOT, "%.4f", value);
  }

  /**
   * A p-value: four decimals, or "&lt; 0.0001" for smaller ones (as text, escaped by the caller).
   */
  public static String pValue(Double value) {
    if (value == null || value.isNaN()) {
      return NONE;
    }
    return value < 1e-4 ? "< 0.0001" : String.format(Locale.ROOT, "%.4f", value);
  }

  /** A token count: whole, or with k/M/B above a thousand (for chart labels). */
  public static String tokens(Long value) {
    if (value == null) {
      return NONE;
    }
    return compact(value.doubleValue());
  }

  /** A token count that may be fractional (a crossover): 4 significant digits, with k/M/B/T. */
  public static String compact(Double value) {
    if (value == null || value.isNaN()) {
      return NONE;
    }
    double v = value;
    String[] units = {"", "k", "M", "B", "T"};
    int unit = 0;
    while (Math.abs(v) >= 1000 && unit < units.length - 1) {
      v /= 1000;
      unit++;
    }
    String digits =
        unit == 0 && v == Math.rint(v)
            ? String.format(Locale.ROOT, "%d", (long) v)
            : String.format(Locale.ROOT, "%.4g", v)
                .replaceFirst("(\\.\\d*?)0+$", "$1")
                .replaceFirst("\\.$", "");
    return digits + units[unit];
  }
}
