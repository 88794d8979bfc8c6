package dev.infuse.udfs.maporl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class RewardsTest {
  private static final double EPS = 1e-9;

  /*
   * The base examples: agents a and b, turns 0..2, gamma 0.5.
   *   V(0) = a 0.2, b 0.8 (mean 0.5); V(1) = a 0.6, b 0.4 (mean 0.5); V(2) = a 1.0, b 0.6 (mean 0.8)
   *   weights from t=0: 1 + 0.5 + 0.25 = 1.75; from t=1: 1 + 0.5 = 1.5; from t=2: 1
   */
  private static List<TurnScore> grid() {
    return List.of(
        new TurnScore("a", 0, 0.2, null),
        new TurnScore("b", 0, 0.8, null),
        new TurnScore("a", 1, 0.6, null),
        new TurnScore("b", 1, 0.4, null),
        new TurnScore("a", 2, 1.0, null),
        new TurnScore("b", 2, 0.6, null));
  }

  private static RewardSettings base(Horizon horizon, Share share) {
    return new RewardSettings(horizon, share, 0.5, 0, 0, 0, 0, IncentiveConvention.PAPER, false);
  }

  private static double[] bases(List<TurnReward> rewards) {
    return rewards.stream().mapToDouble(TurnReward::base).toArray();
  }

  @Test
  void discountedSumSharedWithAll() {
    // a0 = (0.2 + 0.5*0.5 + 0.25*0.8) / 1.75 = 0.65 / 1.75; a1 = (0.6 + 0.5*0.8) / 1.5 = 1.0 / 1.5
    // a2 = 1.0; b0 = (0.8 + 0.25 + 0.2) / 1.75 = 1.25 / 1.75; b1 = (0.4 + 0.4) / 1.5; b2 = 0.6
    assertThat(bases(Rewards.episode(grid(), base(Horizon.DISCOUNTED_SUM, Share.ALL))))
        .containsExactly(
            new double[] {0.65 / 1.75, 1.0 / 1.5, 1.0, 1.25 / 1.75, 0.8 / 1.5, 0.6}, within(EPS));
  }

  @Test
  void discountedSumIndividual() {
    // a0 = (0.2 + 0.5*0.6 + 0.25*1.0) / 1.75 = 0.75 / 1.75; a1 = (0.6 + 0.5*1.0) / 1.5 = 1.1 / 1.5
    // b0 = (0.8 + 0.5*0.4 + 0.25*0.6) / 1.75 = 1.15 / 1.75; b1 = (0.4 + 0.5*0.6) / 1.5 = 0.7 / 1.5
    assertThat(bases(Rewards.episode(grid(), base(Horizon.DISCOUNTED_SUM, Share.INDIVIDUAL))))
        .containsExactly(
            new double[] {0.75 / 1.75, 1.1 / 1.5, 1.0, 1.15 / 1.75, 0.7 / 1.5, 0.6}, within(EPS));
  }

  @Test
  void discountedSumWithGammaZeroIsTheCurrentScore() {
    RewardSettings zero =
        new RewardSettings(
            Horizon.DISCOUNTED_SUM, Share.ALL, 0.0, 0, 0, 0, 0, IncentiveConvention.PAPER, false);
    // 0^0 = 1 and 0^k = 0: R = V(t, i) / 1
    assertThat(bases(Rewards.episode(grid(), zero)))
        .containsExactly(new double[] {0.2, 0.6, 1.0, 0.8, 0.4, 0.6}, within(EPS));
  }

  @Test
  void lastSharedWithAllIsTheMeanOfTheLastTurnEverywhere() {
    // (1.0 + 0.6) / 2 = 0.8 for every agent and turn
    assertThat(bases(Rewards.episode(grid(), base(Horizon.LAST, Share.ALL))))
        .containsExactly(new double[] {0.8, 0.8, 0.8, 0.8, 0.8, 0.8}, within(EPS));
  }

  @Test
  void lastIndividualIsTheAgentsOwnLastScore() {
    assertThat(bases(Rewards.episode(grid(), base(Horizon.LAST, Share.INDIVIDUAL))))
        .containsExactly(new double[] {1.0, 1.0, 1.0, 0.6, 0.6, 0.6}, within(EPS));
  }

  @Test
  void currentSharedWithAllIsThisTurnsMean() {
    // means 0.5, 0.5, 0.8
    assertThat(bases(Rewards.episode(grid(), base(Horizon.CURRENT, Share.ALL))))
        .containsExactly(new double[] {0.5, 0.5, 0.8, 0.5, 0.5, 0.8}, within(EPS));
  }

  @Test
  void currentIndividualIsTheScore() {
    assertThat(bases(Rewards.episode(grid(), base(Horizon.CURRENT, Share.INDIVIDUAL))))
        .containsExactly(new double[] {0.2, 0.6, 1.0, 0.8, 0.4, 0.6}, within(EPS));
  }

  private static RewardSettings incentives(IncentiveConvention convention) {
    // distinct weights so a sum names the terms that fired
    return new RewardSettings(
        Horizon.CURRENT, Share.INDIVIDUAL, 0.3, 0.1, 0.2, 0.4, 0.8, convention, true);
  }

  /** Agent a's bonus at {@code turn} of a 2-agent, 2-turn episode with the given correctness. */
  private static double bonusOfA(
      int turn, IncentiveConvention convention, boolean a0, boolean b0, boolean a1, boolean b1) {
    List<TurnScore> scores =
        List.of(
            new TurnScore("a", 0, a0 ? 1 : 0, null),
            new TurnScore("b", 0, b0 ? 1 : 0, null),
            new TurnScore("a", 1, a1 ? 1 : 0, null),
            new TurnScore("b", 1, b1 ? 1 : 0, null));
    return Rewards.episode(scores, incentives(convention)).get(turn).bonus();
  }

  /*
   * The agent's own change, at t = 1 (the last turn: no forward term), against the other at t = 0.
   * The same in both conventions.
   */
  @ParameterizedTest
  @CsvSource({
    // a0, b0, a1, b1, expected: wrong->right with others right +alpha0 = +0.1
    "false, true, true, true, 0.1",
    // right->wrong with others wrong: -alpha0
    "true, false, false, false, -0.1",
    // wrong->right with others wrong: +alpha1
    "false, false, true, false, 0.2",
    // right->wrong with others right: -alpha1
    "true, true, false, true, -0.2",
    // no change of one's own: nothing
    "true, false, true, true, 0.0"
  })
  void ownChangeTerms(boolean a0, boolean b0, boolean a1, boolean b1, double expected) {
    for (IncentiveConvention convention : IncentiveConvention.values()) {
      assertThat(bonusOfA(1, convention, a0, b0, a1, b1))
          .as(convention.id())
          .isCloseTo(expected, within(EPS));
    }
  }

  /*
   * The effect on others, at t = 0 (no own-change term), from the other's change 0 -> 1 against
   * the agent at 0. Paper signs, then the reference code's (all four flipped).
   */
  @ParameterizedTest
  @CsvSource({
    // a0, b0, b1, paper, code: agent right, others wrong -> right: +beta1 (code -beta1)
    "true, false, true, 0.8, -0.8",
    // agent wrong, others right -> wrong: -beta1 (code +beta1)
    "false, true, false, -0.8, 0.8",
    // agent wrong, others wrong -> right: +beta0 (code -beta0)
    "false, false, true, 0.4, -0.4",
    // agent right, others right -> wrong: -beta0 (code +beta0)
    "true, true, false, -0.4, 0.4",
    // others unchanged: nothing
    "true, false, false, 0.0, 0.0"
  })
  void forwardTerms(boolean a0, boolean b0, boolean b1, double paper, double code) {
    // a1 does not matter at t = 0
    assertThat(bonusOfA(0, IncentiveConvention.PAPER, a0, b0, a0, b1))
        .isCloseTo(paper, within(EPS));
    assertThat(bonusOfA(0, IncentiveConvention.REFERENCE_CODE, a0, b0, a0, b1))
        .isCloseTo(code, within(EPS));
  }

  @Test
  void othersAtExactlyHalfTriggerNoTerm() {
    // three agents; at t=0 a is wrong and of the others b is right, c wrong: mean 0.5, neither
    // right (> 0.5) nor wrong (< 0.5), so a's wrong->right change earns nothing
    List<TurnScore> scores =
        List.of(
            new TurnScore("a", 0, 0, null),
            new TurnScore("b", 0, 1, null),
            new TurnScore("c", 0, 0, null),
            new TurnScore("a", 1, 1, null),
            new TurnScore("b", 1, 1, null),
            new TurnScore("c", 1, 0, null));
    RewardSettings settings = incentives(IncentiveConvention.PAPER);
    assertThat(Rewards.episode(scores, settings).get(1).bonus()).isEqualTo(0.0);
  }

  @Test
  void aLoneAgentGetsAlpha1ForAnyChange() {
    List<TurnScore> scores =
        List.of(new TurnScore("a", 0, 0, null), new TurnScore("a", 1, 1, null));
    assertThat(Rewards.episode(scores, incentives(IncentiveConvention.PAPER)).get(1).bonus())
        .isCloseTo(0.2, within(EPS));
  }

  @Test
  void theReferenceCodeMovesABonusOfExactlyMinusOneToMinusPoint999() {
    RewardSettings code =
        new RewardSettings(
            Horizon.CURRENT,
            Share.INDIVIDUAL,
            0.3,
            0,
            1.0,
            0,
            0,
            IncentiveConvention.REFERENCE_CODE,
            true);
    RewardSettings paper =
        new RewardSettings(
            Horizon.CURRENT, Share.INDIVIDUAL, 0.3, 0, 1.0, 0, 0, IncentiveConvention.PAPER, true);
    // a right -> wrong while b was right: -alpha1 = -1
    List<TurnScore> scores =
        List.of(
            new TurnScore("a", 0, 1, null),
            new TurnScore("b", 0, 1, null),
            new TurnScore("a", 1, 0, null),
            new TurnScore("b", 1, 1, null));
    assertThat(Rewards.episode(scores, code).get(1).bonus()).isCloseTo(-0.999, within(EPS));
    assertThat(Rewards.episode(scores, paper).get(1).bonus()).isEqualTo(-1.0);
  }

  /*
   * End to end: the base grid above, discounted_sum over all agents (gamma 0.5), incentives on with
   * alpha0 0.1, alpha1 0.2, beta0 0.4, beta1 0.8. Correctness from score >= 0.5:
   *   t0: a wrong, b right; t1: a right, b wrong; t2: a right, b right
   * Paper bonuses:
   *   a0: forward: a wrong, b right -> wrong: -beta1 = -0.8
   *   a1: own wrong -> right with b right at t0: +alpha0 = 0.1; forward: a right, b wrong -> right:
   *       +beta1 = 0.8; total 0.9
   *   a2: no change, no forward (last turn): 0
   *   b0: forward: b right, a wrong -> right: +beta1 = 0.8
   *   b1: own right -> wrong with a wrong at t0: -alpha0 = -0.1; forward: a stays right: 0
   *   b2: own wrong -> right with a right at t1: +alpha0 = 0.1
   * Reference-code bonuses flip the forward terms: a0 +0.8, a1 0.1 - 0.8 = -0.7, b0 -0.8.
   */
  @Test
  void twoAgentsThreeTurnsEndToEnd() {
    RewardSettings paper =
        new RewardSettings(
            Horizon.DISCOUNTED_SUM,
            Share.ALL,
            0.5,
            0.1,
            0.2,
            0.4,
            0.8,
            IncentiveConvention.PAPER,
            true);
    List<TurnReward> rewards = Rewards.episode(grid(), paper);
    assertThat(rewards.stream().map(r -> r.agentId() + r.turn()).toList())
        .containsExactly("a0", "a1", "a2", "b0", "b1", "b2");
    assertThat(rewards.stream().map(TurnReward::correct).toList())
        .containsExactly(false, true, true, true, false, true);
    assertThat(rewards.stream().mapToDouble(TurnReward::bonus).toArray())
        .containsExactly(new double[] {-0.8, 0.9, 0.0, 0.8, -0.1, 0.1}, within(EPS));
    assertThat(rewards.stream().mapToDouble(TurnReward::reward).toArray())
        .containsExactly(
            new double[] {
              0.65 / 1.75 - 0.8, 1.0 / 1.5 + 0.9, 1.0, 1.25 / 1.75 + 0.8, 0.8 / 1.5 - 0.1, 0.7
            },
            within(EPS));
    RewardSettings code =
        new RewardSettings(
            Horizon.DISCOUNTED_SUM,
            Share.ALL,
            0.5,
            0.1,
            0.2,
            0.4,
            0.8,
            IncentiveConvention.REFERENCE_CODE,
            true);
    assertThat(Rewards.episode(grid(), code).stream().mapToDouble(TurnReward::bonus).toArray())
        .containsExactly(new double[] {0.8, -0.7, 0.0, -0.8, -0.1, 0.1}, within(EPS));
    // with incentives off the bonus is 0 whatever the weights
    RewardSettings off =
        new RewardSettings(
            Horizon.DISCOUNTED_SUM,
            Share.ALL,
            0.5,
            0.1,
            0.2,
            0.4,
            0.8,
            IncentiveConvention.PAPER,
            false);
    assertThat(Rewards.episode(grid(), off))
        .allMatch(r -> r.bonus() == 0.0 && r.reward() == r.base());
  }

  @Test
  void explicitCorrectnessOverridesTheScore() {
    assertThat(new TurnScore("a", 0, 0.9, false).correct()).isFalse();
    assertThat(new TurnScore("a", 0, 0.5, null).correct()).isTrue();
    assertThat(new TurnScore("a", 0, 0.49, null).correct()).isFalse();
  }

  @Test
  void anIncompleteGridNamesWhatIsMissing() {
    List<TurnScore> scores = new ArrayList<>(grid());
    scores.remove(3); // (b, 1)
    scores.add(new TurnScore("a", 0, 0.1, null));
    assertThatThrownBy(() -> Rewards.episode(scores, RewardSettings.DEFAULTS))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("no score for (agent, turn) (b, 1)")
        .hasMessageContaining("more than one score for (agent, turn) (a, 0)")
        .hasMessageContaining("turn 0..2");
  }

  @Test
  void settingsProblemsNameTheKey() {
    RewardSettings bad =
        new RewardSettings(
            Horizon.LAST, Share.ALL, 1.5, -1, 0, 0, 0, IncentiveConvention.PAPER, true);
    assertThat(bad.problems())
        .containsExactly(
            "gamma: got 1.5, expected 0..1", "alpha0: got -1.0, expected a finite number >= 0");
    assertThatThrownBy(() -> Rewards.episode(grid(), bad)).hasMessageContaining("gamma: got 1.5");
    assertThat(RewardSettings.DEFAULTS.problems()).isEmpty();
    assertThat(RewardSettings.DEFAULTS.horizon()).isEqualTo(Horizon.DISCOUNTED_SUM);
    assertThat(RewardSettings.DEFAULTS.share()).isEqualTo(Share.ALL);
    assertThat(RewardSettings.DEFAULTS.gamma()).isEqualTo(0.3);
    assertThat(RewardSettings.DEFAULTS.incentives()).isFalse();
  }
}
