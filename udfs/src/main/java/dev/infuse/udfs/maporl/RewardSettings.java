package dev.infuse.udfs.maporl;

import java.util.ArrayList;
import java.util.List;

/**
 * How {@link Rewards} turns verifier scores into per-turn rewards: the base (the reference's {@code
 * score_rule}) and the incentive bonus (its {@code bonus_rule}).
 *
 * @param horizon which turns a reward counts
 * @param share whose scores later turns count
 * @param gamma the discount of {@link Horizon#DISCOUNTED_SUM}, in [0, 1] (the reference's {@code
 *     rule_discount})
 * @param alpha0 the bonus for changing one's answer the way the others held it (wrong to right when
 *     the others were right), and the cost of following wrong others (the reference's {@code
 *     alpha[0]})
 * @param alpha1 the bonus for reaching the right answer against wrong others, and the cost of
 *     dropping a right answer that the others shared ({@code alpha[1]})
 * @param beta0 the forward term for others moving from wrong to right while the agent was wrong, or
 *     from right to wrong while it was right ({@code alpha[2]})
 * @param beta1 the forward term for others moving to the agent's answer: wrong to right while it
 *     was right, right to wrong while it was wrong ({@code alpha[3]})
 * @param convention the signs of the forward terms
 * @param incentives whether the bonus is added at all
 */
public record RewardSettings(
    Horizon horizon,
    Share share,
    double gamma,
    double alpha0,
    double alpha1,
    double beta0,
    double beta1,
    IncentiveConvention convention,
    boolean incentives)
    implements java.io.Serializable {

  /**
   * The reference configs' settings: {@code rule_horizon = "discounted_sum"}, {@code
   * rule_agent_share = "all"}, {@code rule_discount = 0.3} (every config under config/ppo_config/).
   * No config sets {@code alpha}, and the training script never assigns the {@code --alpha} it
   * parses, so the effective incentive weights are the trainer's default {@code alpha = [0, 0, 0,
   * 0]}: incentives off. The convention is the paper's, which only matters once incentives are
   * turned on with non-zero weights.
   */
  public static final RewardSettings DEFAULTS =
      new RewardSettings(
          Horizon.DISCOUNTED_SUM,
          Share.ALL,
          0.3,
          0.0,
          0.0,
          0.0,
          0.0,
          IncentiveConvention.PAPER,
          false);

  /** Every problem, each "key: got X, expected Y"; empty when the settings are usable. */
  public List<String> problems() {
    List<String> problems = new ArrayList<>();
    if (horizon == null) {
      problems.add("horizon: missing, expected discounted_sum, last or current");
    }
    if (share == null) {
      problems.add("share: missing, expected all or individual");
    }
    if (convention == null) {
      problems.add("convention: missing, expected paper or reference-code");
    }
    if (!(gamma >= 0.0 && gamma <= 1.0)) {
      problems.add("gamma: got " + gamma + ", expected 0..1");
    }
    check(problems, "alpha0", alpha0);
    check(problems, "alpha1", alpha1);
    check(problems, "beta0", beta0);
    check(problems, "beta1", beta1);
    return problems;
  }

  private static void check(List<String> problems, String name, double value) {
    if (!(value >= 0.0) || Double.isInfinite(value)) {
      problems.add(name + ": got " + value + ", expected a finite number >= 0");
    }
  }
}
