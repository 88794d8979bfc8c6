package dev.infuse.udfs.maporl;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * GRPO-style advantages: within each question's group of rewards, (r − mean) / (std + 1e-6), with
 * the sample standard deviation (n − 1 in the denominator, as {@code torch.std} computes it by
 * default and TRL's GRPO uses). A group of one has no spread and gets 0. The reference trains with
 * PPO and a value head instead; this is for Infuse's group-relative trainer.
 */
public final class GroupAdvantages {
  /** Added to the standard deviation so that a group of equal rewards gives 0, not NaN. */
  public static final double EPSILON = 1e-6;

  private GroupAdvantages() {}

  /** The advantages, group by group, in the order of the input lists. */
  public static Map<String, List<Double>> normalise(Map<String, List<Double>> rewardsByQuestion) {
    Map<String, List<Double>> out = new LinkedHashMap<>();
    rewardsByQuestion.forEach((question, rewards) -> out.put(question, normalise(rewards)));
    return out;
  }

  /** The advantages of one group. */
  public static List<Double> normalise(List<Double> rewards) {
    int n = rewards.size();
    List<Double> out = new ArrayList<>(n);
    if (n <= 1) {
      for (int i = 0; i < n; i++) {
        out.add(0.0);
      }
      return out;
    }
    double mean = 0.0;
    for (double r : rewards) {
      mean += r;
    }
    mean /= n;
    double squares = 0.0;
    for (double r : rewards) {
      squares += (r - mean) * (r - mean);
    }
    double std = Math.sqrt(squares / (n - 1));
    for (double r : rewards) {
      out.add((r - mean) / (std + EPSILON));
    }
    return out;
  }
}
