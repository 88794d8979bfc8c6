package dev.infuse.udfs.behavior.tasks;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * Numbers as clinical text writes them: {@code 82}, {@code 36.8}, {@code 6,200}, or a pair like
 * {@code 95/60}. Parsed to parts and written back in the original's style (decimals, grouping), so
 * a changed value reads like the one it replaces.
 */
final class NumberText {
  static final Pattern NUMBER =
      Pattern.compile("\\d{1,3}(?:,\\d{3})+(?:\\.\\d+)?|\\d+(?:\\.\\d+)?");
  private static final Pattern VALUE =
      Pattern.compile("(?:" + NUMBER.pattern() + ")(?:/(?:" + NUMBER.pattern() + "))?");

  private NumberText() {}

  static boolean isValue(String text) {
    return VALUE.matcher(text).matches();
  }

  /** The parts of {@code 95/60} (two) or {@code 82} (one). */
  static List<Double> parts(String text) {
    List<Double> parts = new ArrayList<>();
    for (String part : text.split("/")) {
      parts.add(Double.parseDouble(part.replace(",", "")));
    }
    return parts;
  }

  /** Every part of {@code original} times {@code factor}, written in the original's style. */
  static String scaled(String original, double factor) {
    String[] parts = original.split("/");
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < parts.length; i++) {
      if (i > 0) {
        out.append('/');
      }
      out.append(styled(Double.parseDouble(parts[i].replace(",", "")) * factor, parts[i]));
    }
    return out.toString();
  }

  private static String styled(double value, String like) {
    int dot = like.indexOf('.');
    int decimals = dot < 0 ? 0 : like.length() - dot - 1;
    BigDecimal rounded = BigDecimal.valueOf(value).setScale(decimals, RoundingMode.HALF_UP);
    return like.contains(",")
        ? String.format(Locale.ROOT, "%,." + decimals + "f", rounded)
        : rounded.toPlainString();
  }
}
