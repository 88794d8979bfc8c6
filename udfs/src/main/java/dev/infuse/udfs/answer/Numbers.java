package dev.infuse.udfs.answer;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Numbers as models and benchmarks write them: {@code 42}, {@code -3.2%}, {@code $1,234.50}, {@code
 * (1,234)} is not read as negative (it is as often a citation as an accounting loss), {@code −7}
 * with a Unicode minus, {@code .5}. Currency signs, thousands separators and percent signs are
 * dropped; the number is kept as written (3.2% is 3.2, not 0.032), which is how the benchmarks'
 * gold answers are written too.
 */
public final class Numbers {
  /**
   * A number: optional sign, optional currency sign (either side of the sign), then digits with
   * well-formed thousands groups or plain digits, then an optional fraction; or a bare fraction.
   */
  private static final Pattern NUMBER =
      Pattern.compile(
          "(?<![\\w.])([-−–+]?)\\s?[$€£¥]?\\s?([-−–]?)((?:\\d{1,3}(?:,\\d{3})+|\\d+)(?:\\.\\d+)?|\\.\\d+)(?![\\d])");

  private Numbers() {}

  /** The numbers in {@code text}, in order of appearance. */
  public static List<BigDecimal> all(String text) {
    List<BigDecimal> numbers = new ArrayList<>();
    if (text == null) {
      return numbers;
    }
    Matcher matcher = NUMBER.matcher(text);
    while (matcher.find()) {
      boolean negative = isMinus(matcher.group(1)) || isMinus(matcher.group(2));
      BigDecimal value = new BigDecimal(matcher.group(3).replace(",", ""));
      numbers.add(negative ? value.negate() : value);
    }
    return numbers;
  }

  /** The first number in {@code text}, or null when it has none. */
  public static BigDecimal first(String text) {
    List<BigDecimal> numbers = all(text);
    return numbers.isEmpty() ? null : numbers.get(0);
  }

  /** The last number in {@code text}, or null when it has none. */
  public static BigDecimal last(String text) {
    List<BigDecimal> numbers = all(text);
    return numbers.isEmpty() ? null : numbers.get(numbers.size() - 1);
  }

  /**
   * {@code text} read as one number, or null: the first number it holds. {@code "$1,234.50"} is
   * 1234.5, {@code "-3.2%"} is -3.2, {@code "twelve"} is null.
   */
  public static BigDecimal parse(String text) {
    return first(text);
  }

  /**
   * The canonical string: no exponent, no trailing zeros, no "-0": {@code 1234.50} is {@code
   * 1234.5}.
   */
  public static String canonical(BigDecimal value) {
    if (value.signum() == 0) {
      return "0";
    }
    return value.stripTrailingZeros().toPlainString();
  }

  /** Whether two numbers are equal as numbers ({@code 42} and {@code 42.0} are). */
  public static boolean equal(BigDecimal a, BigDecimal b) {
    return a != null && b != null && a.compareTo(b) == 0;
  }

  private static boolean isMinus(String sign) {
    return sign != null && !sign.isEmpty() && !sign.equals("+");
  }
}
