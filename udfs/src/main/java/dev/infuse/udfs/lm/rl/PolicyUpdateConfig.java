package dev.infuse.udfs.lm.rl;

import java.util.ArrayList;
import java.util.List;

/**
 * How {@link PolicyUpdater} updates a policy from a batch of rollouts.
 *
 * @param algorithm {@value #PPO} (TRL PPOv2 with a value head and GAE) or {@value #GRPO} (no value
 *     head; each sample's given advantage on every token and a k3 KL loss term)
 * @param klCoef PPO: the per-token KL penalty {@code β} in the reward; GRPO: the weight of the k3
 *     KL loss term. The reference (MAPoRL's config) uses 0.002; TRL's own default is 0.05
 * @param gamma GAE's discount (reference 1.0)
 * @param lambda GAE's λ (reference {@code lam} 0.95)
 * @param clipRange the policy ratio is clipped to {@code 1 ± clipRange} (reference 0.2)
 * @param clipRangeValue the value prediction is clipped to {@code V_old ± clipRangeValue}
 *     (reference 0.2)
 * @param vfCoef the value loss's weight (reference 0.1)
 * @param epochs passes over the batch per update (reference {@code num_ppo_epochs} 4)
 * @param miniBatchSize samples per optimizer step
 * @param learningRate AdamW's rate at the start of the linear decay (reference 1e-5)
 * @param totalUpdates the updates the decay spans: the rate falls linearly to a tenth of {@code
 *     learningRate} over them, as the reference's {@code LinearLR(start_factor=1, end_factor=0.1,
 *     total_iters=num_updates)}
 * @param whitenAdvantages PPO: whiten the advantages over the batch's response tokens (TRL always
 *     does); GRPO ignores it (its advantages arrive normalised)
 * @param gradientClip the largest global gradient norm; 0 turns clipping off (the reference does
 *     not clip)
 * @param seed shuffles the minibatches, together with the update index and epoch
 */
public record PolicyUpdateConfig(
    String algorithm,
    double klCoef,
    double gamma,
    double lambda,
    double clipRange,
    double clipRangeValue,
    double vfCoef,
    int epochs,
    int miniBatchSize,
    double learningRate,
    int totalUpdates,
    boolean whitenAdvantages,
    double gradientClip,
    long seed)
    implements java.io.Serializable {

  public static final String PPO = "ppo";
  public static final String GRPO = "grpo";

  /** The linear decay ends at this fraction of the initial rate (the reference's end_factor). */
  public static final double FINAL_LEARNING_RATE_FACTOR = 0.1;

  /**
   * The reference's settings (MAPoRL {@code config_ppo2_multi_agent2_turn3_gsm8k_*.py} over TRL's
   * {@code PPOv2Config}): PPO, kl_coef 0.002, gamma 1, lam 0.95, cliprange 0.2, cliprange_value
   * 0.2, vf_coef 0.1, 4 epochs, learning rate 1e-5, advantages whitened, no gradient clipping, seed
   * 42. Not from the reference: minibatches of 4 samples (the reference's per-device minibatch,
   * {@code per_device_train_batch_size 1 × gradient_accumulation_steps 4}) and 100 updates, which
   * depend on the data and should be set by the caller.
   */
  public static PolicyUpdateConfig defaults() {
    return new PolicyUpdateConfig(
        PPO, 0.002, 1.0, 0.95, 0.2, 0.2, 0.1, 4, 4, 1e-5, 100, true, 0.0, 42);
  }

  /** Whether this is PPO, with a value head. */
  public boolean usesValueHead() {
    return PPO.equals(algorithm);
  }

  /**
   * The rate of update {@code updateIndex} (from 0): {@code learningRate · (1 − 0.9 · min(u + 1, N)
   * / N)}. The reference calls {@code lr_scheduler.step()} at the start of every update, so even
   * its first update runs one decay step in.
   */
  public double learningRateAt(int updateIndex) {
    double progress = Math.min(updateIndex + 1, totalUpdates) / (double) totalUpdates;
    return learningRate * (1 - (1 - FINAL_LEARNING_RATE_FACTOR) * progress);
  }

  /** Every problem with these values as "key: got X, expected Y"; empty when valid. */
  public List<String> problems() {
    List<String> problems = new ArrayList<>();
    if (!PPO.equals(algorithm) && !GRPO.equals(algorithm)) {
      problems.add("algorithm: got " + algorithm + ", expected " + PPO + " or " + GRPO);
    }
    atLeast(problems, "kl_coef", klCoef, 0);
    if (!(gamma >= 0 && gamma <= 1)) {
      problems.add("gamma: got " + gamma + ", expected 0..1");
    }
    if (!(lambda >= 0 && lambda <= 1)) {
      problems.add("lambda: got " + lambda + ", expected 0..1");
    }
    if (!(clipRange > 0)) {
      problems.add("clip_range: got " + clipRange + ", expected above 0");
    }
    if (!(clipRangeValue > 0)) {
      problems.add("clip_range_value: got " + clipRangeValue + ", expected above 0");
    }
    atLeast(problems, "vf_coef", vfCoef, 0);
    if (epochs <= 0) {
      problems.add("epochs: got " + epochs + ", expected a positive integer");
    }
    if (miniBatchSize <= 0) {
      problems.add("mini_batch_size: got " + miniBatchSize + ", expected a positive integer");
    }
    atLeast(problems, "learning_rate", learningRate, 0);
    if (totalUpdates <= 0) {
      problems.add("total_updates: got " + totalUpdates + ", expected a positive integer");
    }
    atLeast(problems, "gradient_clip", gradientClip, 0);
    return problems;
  }

  private static void atLeast(List<String> problems, String key, double value, double min) {
    if (!(value >= min) || Double.isInfinite(value)) {
      problems.add(key + ": got " + value + ", expected a finite number >= " + min);
    }
  }
}
