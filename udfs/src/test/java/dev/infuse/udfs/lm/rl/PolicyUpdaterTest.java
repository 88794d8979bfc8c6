package dev.infuse.udfs.lm.rl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import ai.djl.Device;
import dev.infuse.udfs.lm.DecoderLm;
import dev.infuse.udfs.lm.DirectMemoryRecycler;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class PolicyUpdaterTest {
  private static final String PROMPT = "Q:";

  private static PolicyUpdateConfig config(String algorithm, int epochs, double learningRate) {
    return new PolicyUpdateConfig(
        algorithm, 0.002, 1.0, 0.95, 0.2, 0.2, 0.1, epochs, 2, learningRate, 10, true, 1.0, 7);
  }

  /** Two fixed responses to one prompt, rewarded +1 and -1. */
  private static List<RlSample> bandit(boolean grpo) {
    List<RlSample> samples = new ArrayList<>();
    for (int copy = 0; copy < 2; copy++) {
      samples.add(
          new RlSample(
              "good-" + copy,
              RlFixtures.ids(PROMPT),
              RlFixtures.ids("yes"),
              1.0,
              grpo ? 1.0 : Double.NaN));
      samples.add(
          new RlSample(
              "bad-" + copy,
              RlFixtures.ids(PROMPT),
              RlFixtures.ids("no!"),
              -1.0,
              grpo ? -1.0 : Double.NaN));
    }
    return samples;
  }

  private static double gap(DecoderLm model) {
    return RlFixtures.logprob(model, PROMPT, "yes") - RlFixtures.logprob(model, PROMPT, "no!");
  }

  @Test
  void ppoRaisesTheRewardedResponseOverThePenalisedOne() {
    try (DecoderLm policy = RlFixtures.model(3);
        DecoderLm reference = RlFixtures.model(3);
        ValueHead head = ValueHead.create(16, Device.cpu(), 3);
        RlAgentState state = RlAgentState.create(policy, head)) {
      double before = gap(policy);
      PolicyUpdateConfig config = config(PolicyUpdateConfig.PPO, 4, 3e-3);
      UpdateStats last = null;
      for (int update = 0; update < 3; update++) {
        last = PolicyUpdater.update(state, reference, bandit(false), config);
      }
      double after = gap(policy);

      assertThat(after).isGreaterThan(before + 0.5);
      assertThat(state.updates()).isEqualTo(3);
      assertThat(state.optimizer().steps()).isEqualTo(3 * 4 * 2);
      assertThat(last.updateIndex()).isEqualTo(2);
      assertThat(last.meanScore()).isCloseTo(0.0, within(1e-12));
      assertThat(last.tokens()).isEqualTo(12);
      assertThat(last.minibatchSteps()).isEqualTo(8);
      assertThat(last.learningRate()).isCloseTo(3e-3 * (1 - 0.9 * 3 / 10.0), within(1e-15));
      assertThat(last.valueLoss()).isPositive();
    }
  }

  @Test
  void theFirstMinibatchOfAPolicyEqualToItsReferenceHasNoKlAndNoClipping() {
    try (DecoderLm policy = RlFixtures.model(3);
        DecoderLm reference = RlFixtures.model(3);
        ValueHead head = ValueHead.create(16, Device.cpu(), 3);
        RlAgentState state = RlAgentState.create(policy, head)) {
      float[] weightBefore =
          policy.parameters().get("layers.0.qkv.weight").getArray().toFloatArray();

      UpdateStats stats =
          PolicyUpdater.update(state, reference, bandit(false), config("ppo", 1, 0.0));

      assertThat(stats.meanKl()).isCloseTo(0.0, within(1e-6));
      assertThat(stats.approxKl()).isCloseTo(0.0, within(1e-12));
      assertThat(stats.clipFraction()).isZero();
      assertThat(stats.learningRate()).isZero();
      assertThat(policy.parameters().get("layers.0.qkv.weight").getArray().toFloatArray())
          .containsExactly(weightBefore);
    }
  }

  @Test
  void grpoMovesInTheDirectionOfTheGivenAdvantage() {
    try (DecoderLm policy = RlFixtures.model(4);
        DecoderLm reference = RlFixtures.model(4);
        RlAgentState state = RlAgentState.create(policy, null)) {
      double before = gap(policy);
      PolicyUpdateConfig config = config(PolicyUpdateConfig.GRPO, 2, 3e-3);
      UpdateStats last = null;
      for (int update = 0; update < 3; update++) {
        last = PolicyUpdater.update(state, reference, bandit(true), config);
      }

      assertThat(gap(policy)).isGreaterThan(before + 0.5);
      assertThat(last.valueLoss()).isZero();
      assertThat(last.grpoKl()).isPositive();
    }
  }

  /**
   * PPO's and GRPO's losses scale by constants in the recorded graph: an update beside a thread
   * that recycles direct memory must equal a quiet one ({@link dev.infuse.udfs.lm.GraphConstants}).
   */
  @Test
  void updatesAreUnchangedWhileDirectMemoryIsRecycled() throws InterruptedException {
    for (String algorithm : List.of(PolicyUpdateConfig.PPO, PolicyUpdateConfig.GRPO)) {
      List<UpdateStats> quiet = updates(algorithm);
      List<UpdateStats> busy;
      try (DirectMemoryRecycler recycler = DirectMemoryRecycler.start()) {
        busy = updates(algorithm);
      }
      assertThat(busy).as(algorithm).isEqualTo(quiet);
    }
  }

  private static List<UpdateStats> updates(String algorithm) {
    boolean grpo = algorithm.equals(PolicyUpdateConfig.GRPO);
    try (DecoderLm policy = RlFixtures.model(3);
        DecoderLm reference = RlFixtures.model(3);
        ValueHead head = grpo ? null : ValueHead.create(16, Device.cpu(), 3);
        RlAgentState state = RlAgentState.create(policy, head)) {
      List<UpdateStats> stats = new ArrayList<>();
      for (int update = 0; update < 3; update++) {
        stats.add(PolicyUpdater.update(state, reference, bandit(grpo), config(algorithm, 2, 3e-3)));
      }
      return stats;
    }
  }

  @Test
  void aTooLongSampleIsRejectedByName() {
    try (DecoderLm policy = RlFixtures.model(3);
        ValueHead head = ValueHead.create(16, Device.cpu(), 3);
        RlAgentState state = RlAgentState.create(policy, head)) {
      List<RlSample> samples =
          List.of(
              RlSample.ppo(
                  "q7-agent1-turn2",
                  RlFixtures.ids("x".repeat(20)),
                  RlFixtures.ids("y".repeat(13)),
                  1));

      assertThatThrownBy(() -> PolicyUpdater.update(state, policy, samples, config("ppo", 1, 1e-3)))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("sample q7-agent1-turn2: prompt 20 + response 13 = 33 tokens")
          .hasMessageContaining("context_length 32");
    }
  }

  @Test
  void configProblemsNameTheKey() {
    PolicyUpdateConfig bad =
        new PolicyUpdateConfig("dpo", -1, 2, 0.95, 0.2, 0.2, 0.1, 0, 0, 1e-5, 0, true, 0, 1);

    assertThat(bad.problems())
        .contains(
            "algorithm: got dpo, expected ppo or grpo",
            "gamma: got 2.0, expected 0..1",
            "epochs: got 0, expected a positive integer",
            "total_updates: got 0, expected a positive integer");
    assertThat(PolicyUpdateConfig.defaults().problems()).isEmpty();
  }
}
