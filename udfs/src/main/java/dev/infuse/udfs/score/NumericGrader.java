package dev.infuse.udfs.score;

import java.util.Optional;

/**
 * FinanceBench-style numeric grading: an answer is correct when its number is within a relative
 * tolerance of the gold number, {@code |answer - gold| <= tolerance * |gold|}.
 *
 * <p>Units and percentages: the values in plain units are compared first (so {@code $1,577 million}
 * matches {@code 1.577 billion}, and {@code 12.5%} matches {@code 0.125}). When exactly one side
 * names a unit, the numbers as written are compared too, because answers often leave the unit of
 * the question implied: {@code 1577} for a gold {@code $1,577 million}, {@code 12.5} for {@code
 * 12.5%}. When both sides name different units, only the plain values count ({@code 12.5%} does not
 * match {@code 12.5 million}). Signs must agree: {@code (1,234)} and {@code -1,234} match, {@code
 * 1,234} does not.
 */
public final class NumericGrader {
  /** The default relative tolerance: 1%. */
  public static final double DEFAULT_TOLERANCE = 0.01;

  /**
   * The outcome; {@link #NOT_NUMERIC} means one side holds no single number, so a judge must
   * decide.
   */
  public enum Verdict {
    CORRECT,
    INCORRECT,
    NOT_NUMERIC
  }

  private final double tolerance;

  /**
   * @param tolerance relative tolerance, in [0, 1)
   */
  public NumericGrader(double tolerance) {
    if (!(tolerance >= 0 && tolerance < 1)) {
      throw new IllegalArgumentException(
          "numeric tolerance: got " + tolerance + ", expected a fraction in [0, 1)");
    }
    this.tolerance = tolerance;
  }

  public Verdict grade(String gold, String answer) {
    Optional<NumericAnswer> g = NumericAnswer.parse(gold);
    Optional<NumericAnswer> a = NumericAnswer.parse(answer);
    if (g.isEmpty() || a.isEmpty()) {
      return Verdict.NOT_NUMERIC;
    }
    return matches(g.get(), a.get()) ? Verdict.CORRECT : Verdict.INCORRECT;
  }

  boolean matches(NumericAnswer gold, NumericAnswer answer) {
    if (close(answer.value(), gold.value())) {
      return true;
    }
    boolean oneUnitImplied =
        (gold.unit() == NumericAnswer.Unit.NONE) != (answer.unit() == NumericAnswer.Unit.NONE);
    return oneUnitImplied && close(answer.mantissa(), gold.mantissa());
  }

  private boolean close(double answer, double gold) {
    // The 1e-12 absorbs binary rounding (0.125 vs 12.5 * 0.01) when the tolerance is 0.
    return Math.abs(answer - gold)
        <= tolerance * Math.abs(gold) + 1e-12 * Math.max(1, Math.abs(gold));
  }
}
