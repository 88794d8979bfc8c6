package dev.infuse.udfs.lm.rl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class AdvantagesTest {
  @Test
  void tokenRewardsPenaliseKlAndCreditTheScoreAtTheLastToken() {
    double[] rewards =
        Advantages.tokenRewards(new double[] {-1, -2}, new double[] {-1.5, -1}, 0.1, 2);

    assertThat(rewards[0]).isCloseTo(-0.05, within(1e-12));
    assertThat(rewards[1]).isCloseTo(0.1 + 2, within(1e-12));
  }

  @Test
  void gaeMatchesAHandComputation() {
    // delta_2 = 1 + 0 - 0.1 = 0.9; A_2 = 0.9
    // delta_1 = 0 + 0.1 - 0.2 = -0.1; A_1 = -0.1 + 0.5 * 0.9 = 0.35
    // delta_0 = 0 + 0.2 - 0.5 = -0.3; A_0 = -0.3 + 0.5 * 0.35 = -0.125
    double[][] gae = Advantages.gae(new double[] {0, 0, 1}, new double[] {0.5, 0.2, 0.1}, 1, 0.5);

    assertThat(gae[0]).containsExactly(new double[] {-0.125, 0.35, 0.9}, within(1e-12));
    assertThat(gae[1]).containsExactly(new double[] {0.375, 0.55, 1.0}, within(1e-12));
  }

  @Test
  void gaeDiscountsWithGamma() {
    // delta_1 = 1 - 0 = 1; A_1 = 1. delta_0 = 0 + 0.9 * 0 - 0 = 0; A_0 = 0.9 * 0.5 * 1 = 0.45
    double[][] gae = Advantages.gae(new double[] {0, 1}, new double[] {0, 0}, 0.9, 0.5);

    assertThat(gae[0]).containsExactly(new double[] {0.45, 1.0}, within(1e-12));
  }

  @Test
  void whiteningUsesTheUnbiasedVarianceOverEveryTokenOfTheBatch() {
    // mean 2, unbiased variance (1 + 0 + 1) / 2 = 1.
    double[][] white = Advantages.whiten(new double[][] {{1, 2}, {3}});

    assertThat(white[0]).containsExactly(new double[] {-1, 0}, within(1e-6));
    assertThat(white[1]).containsExactly(new double[] {1}, within(1e-6));
  }

  @Test
  void whiteningOneValueLeavesItAlone() {
    assertThat(Advantages.whiten(new double[][] {{5}})[0]).containsExactly(5);
  }
}
