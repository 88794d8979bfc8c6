package dev.infuse.udfs.lm;

import static dev.infuse.udfs.lm.CharTokenizer.EOS;
import static dev.infuse.udfs.lm.CharTokenizer.id;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class LogLikelihoodScorerTest {
  private static final double TOLERANCE = 1e-5;

  /**
   * ':' → ' ' 0.9; ' ' → 'x' 0.5, 'y' 0.4; 'x' → 'x' 0.5; 'y' → 'y' 0.9; EOS → 'a' 0.3; 'a' → 'b'
   * 0.6. Everything else spreads what is left evenly.
   */
  private static double[] table(int current) {
    if (current == id(':')) {
      return LookupLm.distribution(new int[] {id(' ')}, new double[] {0.9});
    }
    if (current == id(' ')) {
      return LookupLm.distribution(new int[] {id('x'), id('y')}, new double[] {0.5, 0.4});
    }
    if (current == id('x')) {
      return LookupLm.distribution(new int[] {id('x')}, new double[] {0.5});
    }
    if (current == id('y')) {
      return LookupLm.distribution(new int[] {id('y')}, new double[] {0.9});
    }
    if (current == EOS) {
      return LookupLm.distribution(new int[] {id('a')}, new double[] {0.3});
    }
    if (current == id('a')) {
      return LookupLm.distribution(new int[] {id('b')}, new double[] {0.6});
    }
    return LookupLm.distribution(new int[0], new double[0]);
  }

  private static LookupLm model(int contextLength) {
    return LookupLm.bigram(contextLength, false, LogLikelihoodScorerTest::table);
  }

  @Test
  void sumsTheContinuationLogProbsAndSaysWhetherItIsGreedy() {
    try (LookupLm model = model(64)) {
      List<LogLikelihood> out =
          new LogLikelihoodScorer(model, 4)
              .score(
                  List.of(
                      new LogLikelihoodRequest("Q:", " x"), new LogLikelihoodRequest("Q:", " yy")));

      // ln 0.9 + ln 0.5; ln 0.9 + ln 0.4 + ln 0.9, and 'y' after ' ' is not the argmax.
      assertThat(out.get(0).logLikelihood()).isCloseTo(-0.7985077, within(TOLERANCE));
      assertThat(out.get(0).isGreedy()).isTrue();
      assertThat(out.get(0).continuationTokens()).isEqualTo(2);
      assertThat(out.get(1).logLikelihood()).isCloseTo(-1.1270118, within(TOLERANCE));
      assertThat(out.get(1).isGreedy()).isFalse();
    }
  }

  @Test
  void trailingWhitespaceOfTheContextMovesToTheContinuation() {
    try (LookupLm model = model(64)) {
      LogLikelihood moved =
          new LogLikelihoodScorer(model, 4)
              .score(List.of(new LogLikelihoodRequest("Q: ", "x")))
              .get(0);

      assertThat(moved.continuationTokens()).isEqualTo(2);
      assertThat(moved.logLikelihood()).isCloseTo(Math.log(0.9) + Math.log(0.5), within(TOLERANCE));
    }
  }

  @Test
  void anEmptyContextIsTheEosToken() {
    try (LookupLm model = model(64)) {
      LogLikelihood out =
          new LogLikelihoodScorer(model, 4)
              .score(List.of(new LogLikelihoodRequest("", "ab")))
              .get(0);

      assertThat(out.logLikelihood()).isCloseTo(Math.log(0.3) + Math.log(0.6), within(TOLERANCE));
      assertThat(out.isGreedy()).isTrue();
    }
  }

  @Test
  void aLongContextKeepsItsLastTokens() {
    // 'c' is likely only when the model's first visible token is 'y': true once "xyzab" + "c" is
    // cut to 4 inputs.
    try (LookupLm model =
        new LookupLm(
            4,
            false,
            history ->
                LookupLm.distribution(
                    new int[] {id('c')}, new double[] {history.get(0) == id('y') ? 0.5 : 0.1}))) {
      LogLikelihood out =
          new LogLikelihoodScorer(model, 4)
              .score(List.of(new LogLikelihoodRequest("xyzab", "c")))
              .get(0);

      assertThat(out.logLikelihood()).isCloseTo(Math.log(0.5), within(TOLERANCE));
    }
  }

  @Test
  void accAndAccNormDisagreeWhenTheLongerOptionIsLikelierPerCharacter() {
    try (LookupLm model = model(64)) {
      MultipleChoiceScore score =
          new LogLikelihoodScorer(model, 4).multipleChoice("Q:", List.of("x", "yy"));

      // acc: -0.7985 > -1.1270, so "x". acc_norm: -0.7985 / 1 < -1.1270 / 2 = -0.5635, so "yy".
      assertThat(score.acc()).isEqualTo(0);
      assertThat(score.accNorm()).isEqualTo(1);
      assertThat(score.choices().get(1).logLikelihood()).isCloseTo(-1.1270118, within(TOLERANCE));
    }
  }

  @Test
  void batchedScoresEqualOneByOne() {
    List<LogLikelihoodRequest> requests = new ArrayList<>();
    String[] contexts = {"Q:", "a", "Q: ", "", "xyz yx:", "abab"};
    String[] continuations = {" x", "b", "yy", "ab", " xyx", " y"};
    for (int i = 0; i < contexts.length; i++) {
      requests.add(new LogLikelihoodRequest(contexts[i], continuations[i]));
    }
    try (LookupLm model = new LookupLm(64, false, LookupLm::historyHash)) {
      List<LogLikelihood> batched = new LogLikelihoodScorer(model, 8).score(requests);
      for (int i = 0; i < requests.size(); i++) {
        LogLikelihood alone =
            new LogLikelihoodScorer(model, 1).score(List.of(requests.get(i))).get(0);
        assertThat(batched.get(i).logLikelihood()).isCloseTo(alone.logLikelihood(), within(1e-6));
        assertThat(batched.get(i).isGreedy()).isEqualTo(alone.isGreedy());
      }
      assertThat(model.widestBatch).hasValue(requests.size());
    }
  }

  @Test
  void rejectsAnEmptyContinuationAndOneLongerThanTheContext() {
    try (LookupLm model = model(3)) {
      LogLikelihoodScorer scorer = new LogLikelihoodScorer(model, 4);

      assertThatThrownBy(() -> scorer.score(List.of(new LogLikelihoodRequest("ab", ""))))
          .hasMessageContaining("continuation of request 0: encodes to no tokens");
      assertThatThrownBy(() -> scorer.score(List.of(new LogLikelihoodRequest("ab", "xxxx"))))
          .hasMessageContaining("4 tokens, expected at most the model's context length 3");
      assertThatThrownBy(() -> scorer.score(List.of(new LogLikelihoodRequest("  ", "x"))))
          .hasMessageContaining(
              "context of request 0: encodes to no tokens once its trailing whitespace moves");
      assertThatThrownBy(() -> scorer.multipleChoice("ab", List.of("x", "")))
          .hasMessageContaining("choices: got an empty option");
    }
  }
}
