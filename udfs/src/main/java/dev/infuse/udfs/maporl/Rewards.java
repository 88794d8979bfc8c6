package dev.infuse.udfs.maporl;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;

/**
 * MAPoRL's per-turn rewards for one episode (one question, every agent at every turn 0..x): a base
 * reward from the verifier scores (the reference's {@code score_rule}) plus, with incentives on, a
 * bonus from the answers' correctness (its {@code bonus_rule}). Write V(t, i) for agent i's score
 * at turn t, S(t) for the shared score (the mean of V(t, j) over all agents, i included, for {@link
 * Share#ALL}; V(t, i) for {@link Share#INDIVIDUAL}), and x for the last turn.
 *
 * <p>Base:
 *
 * <ul>
 *   <li>{@link Horizon#DISCOUNTED_SUM}: R(t, i) = [V(t, i) + Σ_{t'=t+1..x} γ^{t'−t} S(t')] /
 *       Σ_{t'=t..x} γ^{t'−t}. With share=individual this is the discounted average of the agent's
 *       own scores from t on. At t = x it is V(x, i).
 *   <li>{@link Horizon#LAST}: S(x), the same for every turn of the agent (the mean last-turn score
 *       of all agents, or the agent's own last-turn score).
 *   <li>{@link Horizon#CURRENT}: S(t), this turn only (the mean of all agents at t, or V(t, i)).
 * </ul>
 *
 * <p>Bonus, with C(t, i) the agent's correctness and O(t) the mean correctness of the other agents
 * at t, which counts as right when O > 0.5 and wrong when O < 0.5 (strictly, as the reference's
 * thresholds are; O = 0.5, possible with 3 or more agents, is neither, and no term applies):
 *
 * <ul>
 *   <li>at t >= 1, the agent's change from t−1 to t against O(t−1): wrong to right with others
 *       right +α0, with others wrong +α1; right to wrong with others wrong −α0, with others right
 *       −α1. A lone agent gets ±α1 for any change.
 *   <li>at t < x, with two or more agents, the others' change from t to t+1 against the agent at t
 *       (the paper's signs): others wrong to right while the agent was right +β1, while it was
 *       wrong +β0; others right to wrong while the agent was wrong −β1, while it was right −β0.
 *       {@link IncentiveConvention#REFERENCE_CODE} uses the code's signs, all four the opposite,
 *       and also its guard: a bonus that becomes exactly −1 after a term is moved to −0.999 (−1
 *       marks a finished question in the reference's tensors).
 * </ul>
 *
 * <p>An episode that stopped early (the reference's {@code finished_question}) is passed with the
 * turns it has. Scores are taken as given: apply a {@link NonEosPenalty} to them first, as the
 * reference does.
 */
public final class Rewards {
  private Rewards() {}

  /**
   * The rewards of one episode, agent by agent (in order of first appearance in {@code scores}),
   * turn by turn.
   *
   * @throws IllegalArgumentException for unusable settings, an empty episode, or a grid that is not
   *     complete (naming each missing or repeated (agent, turn))
   */
  public static List<TurnReward> episode(List<TurnScore> scores, RewardSettings settings) {
    List<String> problems = settings.problems();
    if (!problems.isEmpty()) {
      throw new IllegalArgumentException("reward settings: " + String.join("; ", problems));
    }
    if (scores == null || scores.isEmpty()) {
      throw new IllegalArgumentException("scores: got none, expected every agent at every turn");
    }
    LinkedHashSet<String> agentSet = new LinkedHashSet<>();
    int last = 0;
    for (TurnScore score : scores) {
      agentSet.add(score.agentId());
      last = Math.max(last, score.turn());
    }
    List<String> agents = new ArrayList<>(agentSet);
    Map<String, Integer> index = new HashMap<>();
    for (int i = 0; i < agents.size(); i++) {
      index.put(agents.get(i), i);
    }
    TurnScore[][] grid = new TurnScore[last + 1][agents.size()];
    List<String> repeated = new ArrayList<>();
    for (TurnScore score : scores) {
      int i = index.get(score.agentId());
      if (grid[score.turn()][i] != null) {
        repeated.add("(" + score.agentId() + ", " + score.turn() + ")");
      }
      grid[score.turn()][i] = score;
    }
    List<String> missing = new ArrayList<>();
    for (int i = 0; i < agents.size(); i++) {
      for (int t = 0; t <= last; t++) {
        if (grid[t][i] == null) {
          missing.add("(" + agents.get(i) + ", " + t + ")");
        }
      }
    }
    if (!missing.isEmpty() || !repeated.isEmpty()) {
      throw new IllegalArgumentException(
          "scores: "
              + (missing.isEmpty()
                  ? ""
                  : "no score for (agent, turn) " + String.join(", ", missing))
              + (!missing.isEmpty() && !repeated.isEmpty() ? "; " : "")
              + (repeated.isEmpty()
                  ? ""
                  : "more than one score for (agent, turn) " + String.join(", ", repeated))
              + "; expected one score for each of "
              + agents.size()
              + " agent(s) at every turn 0.."
              + last);
    }
    int n = agents.size();
    double[][] v = new double[last + 1][n];
    boolean[][] c = new boolean[last + 1][n];
    for (int t = 0; t <= last; t++) {
      for (int i = 0; i < n; i++) {
        v[t][i] = grid[t][i].score();
        c[t][i] = grid[t][i].correct();
      }
    }
    List<TurnReward> rewards = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      for (int t = 0; t <= last; t++) {
        double base = base(v, t, i, settings);
        double bonus = settings.incentives() ? bonus(c, t, i, settings) : 0.0;
        rewards.add(new TurnReward(agents.get(i), t, v[t][i], c[t][i], base, bonus, base + bonus));
      }
    }
    return rewards;
  }

  static double base(double[][] v, int t, int i, RewardSettings settings) {
    int last = v.length - 1;
    boolean all = settings.share() == Share.ALL;
    switch (settings.horizon()) {
      case LAST:
        return all ? mean(v[last]) : v[last][i];
      case CURRENT:
        return all ? mean(v[t]) : v[t][i];
      case DISCOUNTED_SUM:
      default:
        double gamma = settings.gamma();
        double weights = 0.0;
        double sum = v[t][i];
        for (int u = t; u <= last; u++) {
          double w = Math.pow(gamma, u - t);
          weights += w;
          if (u > t) {
            sum += w * (all ? mean(v[u]) : v[u][i]);
          }
        }
        return sum / weights;
    }
  }

  static double bonus(boolean[][] c, int t, int i, RewardSettings s) {
    int n = c[0].length;
    int last = c.length - 1;
    boolean code = s.convention() == IncentiveConvention.REFERENCE_CODE;
    double bonus = 0.0;
    if (t > 0) {
      boolean before = c[t - 1][i];
      boolean now = c[t][i];
      double others = n > 1 ? othersMean(c[t - 1], i) : Double.NaN;
      if (before && !now) {
        if (n == 1 || others > 0.5) {
          bonus = add(bonus, -s.alpha1(), code);
        } else if (others < 0.5) {
          bonus = add(bonus, -s.alpha0(), code);
        }
      }
      if (!before && now) {
        if (n == 1 || others < 0.5) {
          bonus = add(bonus, s.alpha1(), code);
        } else if (others > 0.5) {
          bonus = add(bonus, s.alpha0(), code);
        }
      }
    }
    if (t < last && n > 1) {
      boolean own = c[t][i];
      double othersNow = othersMean(c[t], i);
      double othersNext = othersMean(c[t + 1], i);
      double sign = code ? -1.0 : 1.0;
      if (othersNext > 0.5 && othersNow < 0.5) {
        bonus = add(bonus, sign * (own ? s.beta1() : s.beta0()), code);
      }
      if (othersNext < 0.5 && othersNow > 0.5) {
        bonus = add(bonus, -sign * (own ? s.beta0() : s.beta1()), code);
      }
    }
    return bonus;
  }

  /**
   * The reference's guard, in its convention only: a running bonus of exactly −1 becomes −0.999.
   */
  private static double add(double bonus, double term, boolean code) {
    double sum = bonus + term;
    return code && sum == -1.0 ? sum + 0.001 : sum;
  }

  private static double othersMean(boolean[] correct, int self) {
    int right = 0;
    for (int j = 0; j < correct.length; j++) {
      if (j != self && correct[j]) {
        right++;
      }
    }
    return right / (double) (correct.length - 1);
  }

  private static double mean(double[] values) {
    double sum = 0.0;
    for (double value : values) {
      sum += value;
    }
    return sum / values.length;
  }
}
