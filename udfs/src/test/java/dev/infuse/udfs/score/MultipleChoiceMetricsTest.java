package dev.infuse.udfs.score;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class MultipleChoiceMetricsTest {
  @Test
  void accPicksTheHighestLogLikelihoodAndAccNormDividesByCharactersAsTheHarnessDoes() {
    // Harness: pred = argmax(lls); pred_norm = argmax(lls / [len(c) for c in choices]).
    // lls / len: -4/2 = -2.0, -5/10 = -0.5, -3/1 = -3.0.
    double[] lls = {-4.0, -5.0, -3.0};
    List<String> options = List.of("no", "absolutely", "y");
    assertThat(MultipleChoiceMetrics.acc(lls)).isEqualTo(2);
    assertThat(MultipleChoiceMetrics.accNorm(lls, options)).isEqualTo(1);
    assertThat(MultipleChoiceMetrics.normalized(lls, options, 1)).isEqualTo(-0.5);
  }

  @Test
  void lengthIsInCodePointsLikePythonLenAndTiesGoToTheFirstOption() {
    // "😀😀" is 4 UTF-16 chars but 2 Python characters: -2/2 = -1.0 beats "abc" at -3.3/3 = -1.1.
    assertThat(MultipleChoiceMetrics.accNorm(new double[] {-3.3, -2.0}, List.of("abc", "😀😀")))
        .isEqualTo(1);
    // With String.length() it would be -2/4 = -0.5 either way; check the tie rule separately.
    assertThat(MultipleChoiceMetrics.acc(new double[] {-1.0, -1.0, -2.0})).isZero();
    assertThat(MultipleChoiceMetrics.accNorm(new double[] {-2.0, -4.0}, List.of("ab", "abcd")))
        .isZero();
  }

  @Test
  void accNormPicksDifferentlyThanItWouldCountingUtf16Units() {
    // "😀" is 1 code point (Python's len) but 2 UTF-16 units. Code points: -4/1 = -4.0 against
    // "ab" at -6/2 = -3.0, so "ab"; UTF-16 units would give -4/2 = -2.0, so "😀".
    double[] lls = {-4.0, -6.0};
    List<String> options = List.of("😀", "ab");
    assertThat(MultipleChoiceMetrics.accNorm(lls, options)).isEqualTo(1);
    assertThat(MultipleChoiceMetrics.normalized(lls, options, 0)).isEqualTo(-4.0);
  }

  @Test
  void refusesMismatchedOrEmptyOptions() {
    assertThatThrownBy(() -> MultipleChoiceMetrics.accNorm(new double[] {-1, -2}, List.of("a")))
        .hasMessageContaining("options: got 1 for 2");
    assertThatThrownBy(() -> MultipleChoiceMetrics.accNorm(new double[] {-1, -2}, List.of("a", "")))
        .hasMessageContaining("option 1: got an empty option");
    assertThatThrownBy(() -> MultipleChoiceMetrics.acc(new double[0]))
        .hasMessageContaining("got none");
  }
}
