package dev.infuse.udfs.answer;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Worked examples of answer extraction: what models really write, and what must not be read as an
 * answer.
 */
class AnswerParserTest {
  private static final List<String> OPTIONS =
      List.of(
          "He stayed on the ship",
          "He went home to Earth",
          "He learned the Tr'en language",
          "He was executed");
  private static final List<String> LABELS = List.of("entailment", "neutral", "contradiction");

  @ParameterizedTest(name = "[{index}] {0} -> {1}")
  @CsvSource(
      delimiter = '|',
      nullValues = "NULL",
      textBlock =
          """
      The answer is (B)                                              | B
      The answer is B.                                               | B
      the answer is (c)                                              | C
      Answer: d                                                      | D
      Answer: D                                                      | D
      ANSWER: C                                                      | C
      Final answer: **B**                                            | B
      The correct answer is: **C**                                   | C
      Answer: (A) He stayed on the ship                              | A
      B.                                                             | B
      B                                                              | B
      (C)                                                            | C
      c)                                                             | C
      D) He was executed.                                            | D
      **C**                                                          | C
      I think **A** fits best.                                       | A
      Korvin is clever. (C) is consistent with the ending.          | C
      The correct option is D because of the ending.                 | D
      Option A is tempting, (B) too, but the answer is (D).          | D
      First, (A) is wrong. Then (B) is wrong. The answer is C        | C
      The answer is a bit unclear from the text.                     | NULL
      The answer is E                                                | NULL
      I do not know.                                                 | NULL
      A good question; I cannot tell.                                | NULL
      He learned the Tr'en language.                                 | C
      "he was EXECUTED"                                              | D
      Either he stayed on the ship or he was executed.               | NULL
      """)
  void optionLetters(String output, String expected) {
    assertThat(AnswerParser.option(output, OPTIONS)).isEqualTo(expected);
  }

  @Test
  void chainOfThoughtTakesTheLastStatedAnswer() {
    String cot =
        """
        Let's think step by step. The story says Korvin tricks the Tr'en. Option (A) says he stayed on the ship,
        but he is in a cell. The answer is not (B) either.
        Therefore, the answer is (C).""";
    assertThat(AnswerParser.option(cot, OPTIONS)).isEqualTo("C");
  }

  @Test
  void anOptionQuotedInsideALongerOptionDoesNotCount() {
    List<String> options = List.of("Paris", "Paris and London", "Rome", "Berlin");
    assertThat(AnswerParser.option("It is Paris and London.", options)).isEqualTo("B");
    assertThat(AnswerParser.option("Paris", options)).isEqualTo("A");
  }

  @ParameterizedTest(name = "[{index}] {0} -> {1}")
  @CsvSource(
      delimiter = '|',
      nullValues = "NULL",
      textBlock =
          """
      So she has 3 + 4 = 7 apples. \\boxed{7}                                 | 7
      The total is \\boxed{1,234.50}                                          | 1234.5
      \\boxed{\\$18} is what she makes.                                      | 18
      \\boxed{\\text{42 dollars}}                                            | 42
      Natalia sold 48/2 = 24 clips in May. 48+24 = 72 #### 72                 | 72
      #### -5                                                                  | -5
      The answer is $1,234.5.                                                  | 1234.5
      Revenue fell, so the answer is -3.2%.                                    | -3.2
      The answer is −7 degrees.                                                | -7
      She pays 2 * 3 = 6 dollars, then 6 + 10 = 16 dollars in total.          | 16
      It costs .5 dollars                                                      | 0.5
      It is 42.0                                                               | 42
      In 2019–2020 the margin was 12%                                          | 12
      I cannot say.                                                            | NULL
      """)
  void numbers(String output, String expected) {
    assertThat(AnswerParser.number(output)).isEqualTo(expected);
  }

  @Test
  void boxedWinsOverLaterNumbersAndNestedBracesBalance() {
    assertThat(AnswerParser.number("\\boxed{\\frac{3}{4}} of 8 is 6")).isEqualTo("0.75");
    assertThat(AnswerParser.number("\\boxed{-\\dfrac{1}{8}}")).isEqualTo("-0.125");
    assertThat(AnswerParser.number("so \\boxed{12}. Check: 12 * 2 = 24")).isEqualTo("12");
  }

  @ParameterizedTest(name = "[{index}] {0} -> {1}")
  @CsvSource(
      delimiter = '|',
      nullValues = "NULL",
      textBlock =
          """
      Answer: entailment                                                  | entailment
      Answer: Contradiction.                                              | contradiction
      The premise entails the hypothesis.                                 | entailment
      This contradicts the premise.                                       | contradiction
      neutral                                                             | neutral
      It could be entailment or contradiction; Answer: neutral            | neutral
      It could be entailment or contradiction.                            | NULL
      I am not sure.                                                      | NULL
      """)
  void labels(String output, String expected) {
    assertThat(AnswerParser.label(output, LABELS)).isEqualTo(expected);
  }

  @ParameterizedTest(name = "[{index}] {0} -> {1}")
  @CsvSource(
      delimiter = '|',
      nullValues = "NULL",
      textBlock =
          """
      Final answer: $1,577 million.                                    | $1,577 million
      Revenue grew. Final answer: **24.3%**                            | 24.3%
      Answer: Yes, it is capital intensive.                            | Yes, it is capital intensive
      The ratio is \\boxed{0.66}                                       | 0.66
      The quick ratio was 1.2.                                         | The quick ratio was 1.2
      '   '                                                             | NULL
      """)
  void freeText(String output, String expected) {
    assertThat(AnswerParser.free(output)).isEqualTo(expected);
  }

  @Test
  void correctnessByAnswerType() {
    assertThat(AnswerParser.correct("mcq", "B", "B")).isTrue();
    assertThat(AnswerParser.correct("mcq", "C", "B")).isFalse();
    assertThat(AnswerParser.correct("mcq", null, "B")).as("unparseable counts wrong").isFalse();
    assertThat(AnswerParser.correct("label", "neutral", "neutral")).isTrue();
    assertThat(AnswerParser.correct("numeric", "72", "72")).isTrue();
    assertThat(AnswerParser.correct("numeric", "72.0", "72")).isTrue();
    assertThat(AnswerParser.correct("numeric", "1234.5", "1234.50")).isTrue();
    assertThat(AnswerParser.correct("numeric", "-3", "3")).isFalse();
    assertThat(AnswerParser.correct("free", "$1,577 million", "$1577.00"))
        .as("score grades free answers")
        .isNull();
    assertThat(AnswerParser.correct("mcq", "B", null)).as("no gold, nothing to judge").isNull();
  }

  @Test
  void parseDispatchesOnAnswerType() {
    assertThat(AnswerParser.parse("mcq", "The answer is (B)", OPTIONS)).isEqualTo("B");
    assertThat(AnswerParser.parse("label", "Answer: neutral", LABELS)).isEqualTo("neutral");
    assertThat(AnswerParser.parse("numeric", "#### 1,000", null)).isEqualTo("1000");
    assertThat(AnswerParser.parse("free", "Final answer: 3M", null)).isEqualTo("3M");
  }

  @Test
  void numbersReadCurrencyPercentAndSigns() {
    assertThat(Numbers.all("$1,234.5 fell -3.2% to −7 and +4; v2 x3 .25"))
        .extracting(Numbers::canonical)
        .containsExactly("1234.5", "-3.2", "-7", "4", "0.25");
    assertThat(Numbers.canonical(new java.math.BigDecimal("-0.00"))).isEqualTo("0");
    assertThat(Numbers.parse("twelve")).isNull();
  }
}
