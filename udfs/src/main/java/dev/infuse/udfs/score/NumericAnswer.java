package dev.infuse.udfs.score;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A number read from an answer as people write it in financial text: {@code $1,577 million}, {@code
 * (1,234)} (negative), {@code -3.5%}, {@code 12.5 percent}, {@code $2.1bn}, {@code 0.125}.
 *
 * <p>A text is numeric when it holds exactly one number. A bare four-digit integer from 1900 to
 * 2100 (no currency, unit, separator or decimals) is taken for a year and ignored when another
 * number is present: "In FY2019 capex was $1,577 million" reads as 1,577 million. Numbers glued to
 * letters ({@code FY2019}, {@code Q3}, {@code 10-K}) are not numbers.
 *
 * @param mantissa the number as written, sign applied, without its unit ({@code -1234} for
 *     "(1,234)")
 * @param unit the unit that followed it, if any
 */
public record NumericAnswer(double mantissa, Unit unit) {
  /** What a number was written in; {@link #scale()} turns the mantissa into the value. */
  public enum Unit {
    NONE(1),
    PERCENT(0.01),
    THOUSAND(1e3),
    MILLION(1e6),
    BILLION(1e9),
    TRILLION(1e12);

    private final double scale;

    Unit(double scale) {
      this.scale = scale;
    }

    public double scale() {
      return scale;
    }
  }

  private static final Pattern NUMBER =
      Pattern.compile(
          "(?<open>\\()?\\s*(?<sign>[-\u2212\u2013])?\\s*(?<cur>US\\$|\\$|USD\\s?)?\\s*(?<open2>\\()?(?<sign2>[-\u2212])?"
              + "(?<![\\p{L}\\d.,])(?<num>(?:\\d{1,3}(?:,\\d{3})+|\\d+)(?:\\.\\d+)?|\\.\\d+)(?!\\d)"
              + "(?<close>\\))?\\s*"
              + "(?<unit>%|percent(?![\\p{L}])|per\\s+cent(?![\\p{L}])|thousands?(?![\\p{L}])|millions?(?![\\p{L}])"
              + "|billions?(?![\\p{L}])|trillions?(?![\\p{L}])|bn(?![\\p{L}])|mn(?![\\p{L}])|mm(?![\\p{L}])|tn(?![\\p{L}])"
              + "|k(?![\\p{L}])|m(?![\\p{L}])|b(?![\\p{L}]))?"
              + "(?<close2>\\))?",
          Pattern.CASE_INSENSITIVE);

  /** The value in plain units: the mantissa times its unit's scale (12.5% is 0.125). */
  public double value() {
    return mantissa * unit.scale();
  }

  /** The one number in {@code text}, or empty when it holds none or several. */
  public static Optional<NumericAnswer> parse(String text) {
    if (text == null) {
      return Optional.empty();
    }
    List<Found> found = new ArrayList<>();
    Matcher matcher = NUMBER.matcher(text);
    while (matcher.find()) {
      // A "-" or "(" right after a letter or digit is a hyphen or a bracket, not a sign: "10-K",
      // "Q3 (2019)".
      String num = matcher.group("num");
      String unitText = matcher.group("unit");
      if (gluedAfter(text, matcher.end("num"), unitText)) {
        continue;
      }
      double magnitude = Double.parseDouble(num.replace(",", ""));
      Unit unit = unit(unitText);
      boolean parenthesised =
          (matcher.group("open") != null || matcher.group("open2") != null)
              && (matcher.group("close") != null || matcher.group("close2") != null);
      boolean minus =
          matcher.group("sign") != null && !gluedToWord(text, matcher.start("sign"))
              || matcher.group("sign2") != null;
      boolean negative = parenthesised || minus;
      boolean plainYear =
          unit == Unit.NONE
              && matcher.group("cur") == null
              && num.matches("(19|20)\\d\\d|2100")
              && !negative;
      found.add(new Found(new NumericAnswer(negative ? -magnitude : magnitude, unit), plainYear));
    }
    if (found.size() > 1) {
      found.removeIf(Found::year);
    }
    return found.size() == 1 ? Optional.of(found.get(0).answer()) : Optional.empty();
  }

  /**
   * A number run into letters ("3rd", "2x") or a hyphenated code ("10-K", "S-1") is not an amount.
   */
  private static boolean gluedAfter(String text, int end, String unit) {
    if (end >= text.length()) {
      return false;
    }
    char next = text.charAt(end);
    if (Character.isLetter(next)) {
      return unit == null;
    }
    return (next == '-' || next == '\u2013')
        && end + 1 < text.length()
        && Character.isLetter(text.charAt(end + 1));
  }

  private static boolean gluedToWord(String text, int signStart) {
    return signStart > 0 && Character.isLetterOrDigit(text.charAt(signStart - 1));
  }

  private static Unit unit(String text) {
    if (text == null) {
      return Unit.NONE;
    }
    String u = text.toLowerCase(Locale.ROOT).replaceAll("\\s+", " ");
    return switch (u) {
      case "%", "percent", "per cent" -> Unit.PERCENT;
      case "thousand", "thousands", "k" -> Unit.THOUSAND;
      case "million", "millions", "mn", "mm", "m" -> Unit.MILLION;
      case "billion", "billions", "bn", "b" -> Unit.BILLION;
      case "trillion", "trillions", "tn" -> Unit.TRILLION;
      default ->
          throw new IllegalStateException("unit pattern and switch disagree on '" + text + "'");
    };
  }

  private record Found(NumericAnswer answer, boolean year) {}
}
