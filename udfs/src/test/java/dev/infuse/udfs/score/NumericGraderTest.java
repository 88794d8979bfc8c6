package dev.infuse.udfs.score;

import static org.assertj.core.api.Assertions.assertThat;

import dev.infuse.udfs.score.NumericGrader.Verdict;
import org.junit.jupiter.api.Test;

class NumericGraderTest {
  private final NumericGrader grader = new NumericGrader(NumericGrader.DEFAULT_TOLERANCE);

  @Test
  void readsSeparatorsCurrencyUnitsSignsAndParentheses() {
    assertThat(NumericAnswer.parse("$1,577.00").orElseThrow().value()).isEqualTo(1577.0);
    assertThat(NumericAnswer.parse("(1,234)").orElseThrow().value()).isEqualTo(-1234.0);
    assertThat(NumericAnswer.parse("$(1,234) million").orElseThrow().value()).isEqualTo(-1.234e9);
    assertThat(NumericAnswer.parse("-3.5%").orElseThrow().value()).isEqualTo(-0.035);
    assertThat(NumericAnswer.parse("12.5 percent").orElseThrow().unit())
        .isEqualTo(NumericAnswer.Unit.PERCENT);
    assertThat(NumericAnswer.parse("$2.1bn").orElseThrow().value()).isEqualTo(2.1e9);
    assertThat(NumericAnswer.parse("USD 850 thousand").orElseThrow().value()).isEqualTo(850_000.0);
    assertThat(NumericAnswer.parse("The answer is 0.125.").orElseThrow().value()).isEqualTo(0.125);
  }

  @Test
  void aTextWithOneNumberIsNumericAndYearsOrCodesDoNotCount() {
    assertThat(
            NumericAnswer.parse("In FY2019 capital expenditure was $1,577 million.")
                .orElseThrow()
                .value())
        .isEqualTo(1.577e9);
    assertThat(
            NumericAnswer.parse("In 2019 capital expenditure was $1,577 million.")
                .orElseThrow()
                .value())
        .isEqualTo(1.577e9);
    assertThat(NumericAnswer.parse("Per the 10-K, revenue fell.")).isEmpty();
    assertThat(NumericAnswer.parse("Revenue grew from 10 to 12 million")).isEmpty();
    assertThat(NumericAnswer.parse("Yes, the company is capital intensive.")).isEmpty();
    assertThat(NumericAnswer.parse("2019")).map(NumericAnswer::value).hasValue(2019.0);
  }

  @Test
  void unitsScaleAndAnImpliedUnitStillMatches() {
    assertThat(grader.grade("$1,577 million", "1.577 billion")).isEqualTo(Verdict.CORRECT);
    assertThat(grader.grade("$1,577 million", "$1577")).isEqualTo(Verdict.CORRECT);
    assertThat(grader.grade("$1,577 million", "1,577,000 thousand")).isEqualTo(Verdict.CORRECT);
    assertThat(grader.grade("$1,577 million", "1.577 million")).isEqualTo(Verdict.INCORRECT);
    assertThat(grader.grade("$8.70", "8.7")).isEqualTo(Verdict.CORRECT);
  }

  @Test
  void percentagesMatchAsFractionsOrAsTheNumberWritten() {
    assertThat(grader.grade("12.5%", "0.125")).isEqualTo(Verdict.CORRECT);
    assertThat(grader.grade("12.5%", "12.5")).isEqualTo(Verdict.CORRECT);
    assertThat(grader.grade("0.125", "12.5 percent")).isEqualTo(Verdict.CORRECT);
    assertThat(grader.grade("12.5%", "12.5 million")).isEqualTo(Verdict.INCORRECT);
    assertThat(grader.grade("12.5%", "13%")).isEqualTo(Verdict.INCORRECT);
  }

  @Test
  void negativesInParenthesesOrWithAMinusAgreeAndSignsMatter() {
    assertThat(grader.grade("(1,234)", "-1234")).isEqualTo(Verdict.CORRECT);
    assertThat(grader.grade("-$1,234", "$(1,234)")).isEqualTo(Verdict.CORRECT);
    assertThat(grader.grade("(1,234)", "1,234")).isEqualTo(Verdict.INCORRECT);
    assertThat(grader.grade("-0.02", "(2%)")).isEqualTo(Verdict.CORRECT);
  }

  @Test
  void theToleranceIsRelativeToTheGoldAndConfigurable() {
    assertThat(grader.grade("1000", "1009.9")).isEqualTo(Verdict.CORRECT);
    assertThat(grader.grade("1000", "1010.1")).isEqualTo(Verdict.INCORRECT);
    assertThat(grader.grade("1000", "990.5")).isEqualTo(Verdict.CORRECT);
    assertThat(new NumericGrader(0.05).grade("1000", "1040")).isEqualTo(Verdict.CORRECT);
    assertThat(new NumericGrader(0).grade("0.125", "12.5%")).isEqualTo(Verdict.CORRECT);
    assertThat(new NumericGrader(0).grade("0", "0.0")).isEqualTo(Verdict.CORRECT);
  }

  @Test
  void anythingWithoutOneNumberGoesToTheJudge() {
    assertThat(grader.grade("Yes, it is capital intensive.", "yes")).isEqualTo(Verdict.NOT_NUMERIC);
    assertThat(grader.grade("1,577", "about 1,500 or 1,600")).isEqualTo(Verdict.NOT_NUMERIC);
    assertThat(grader.grade("1,577", null)).isEqualTo(Verdict.NOT_NUMERIC);
  }
}
