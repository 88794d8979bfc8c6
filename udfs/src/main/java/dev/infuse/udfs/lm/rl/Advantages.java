package dev.infuse.udfs.lm.rl;

/**
 * The arithmetic of PPO's rewards and advantages on plain arrays, one entry per response token, so
 * that it can be checked by hand.
 */
public final class Advantages {
  /** TRL's {@code masked_whiten} adds this to the variance before the square root. */
  public static final double WHITEN_EPSILON = 1e-8;

  private Advantages() {}

  /**
   * Per-token rewards: {@code r_t = −klCoef · (logπ_old(t) − logπ_ref(t))}, with {@code score}
   * added at the last token.
   *
   * <p>Differs from TRL PPOv2 (and the reference): there the score lands at {@code sequence_length
   * + 1}, one past the last real response token, whenever the padded response tensor has room, so
   * it reaches the last real token only through GAE (with factor γλ and the value at the pad
   * position in between). Here it is credited at the last response token itself, which is what the
   * reference means and what it does for a response that fills its tensor.
   */
  public static double[] tokenRewards(
      double[] logprobs, double[] referenceLogprobs, double klCoef, double score) {
    if (logprobs.length != referenceLogprobs.length || logprobs.length == 0) {
      throw new IllegalArgumentException(
          "logprobs: got "
              + logprobs.length
              + " and "
              + referenceLogprobs.length
              + " entries, expected the same positive count");
    }
    double[] rewards = new double[logprobs.length];
    for (int t = 0; t < rewards.length; t++) {
      rewards[t] = -klCoef * (logprobs[t] - referenceLogprobs[t]);
    }
    rewards[rewards.length - 1] += score;
    return rewards;
  }

  /**
   * Generalised advantage estimation, backwards over one response: {@code δ_t = r_t + γ·V_{t+1} −
   * V_t} with {@code V_T = 0} past the last token, {@code A_t = δ_t + γλ·A_{t+1}}, and returns
   * {@code R_t = A_t + V_t}.
   *
   * @return {@code {advantages, returns}}
   */
  public static double[][] gae(double[] rewards, double[] values, double gamma, double lambda) {
    if (rewards.length != values.length) {
      throw new IllegalArgumentException(
          "values: got " + values.length + " entries, expected " + rewards.length);
    }
    int n = rewards.length;
    double[] advantages = new double[n];
    double[] returns = new double[n];
    double last = 0;
    for (int t = n - 1; t >= 0; t--) {
      double next = t + 1 < n ? values[t + 1] : 0;
      double delta = rewards[t] + gamma * next - values[t];
      last = delta + gamma * lambda * last;
      advantages[t] = last;
      returns[t] = last + values[t];
    }
    return new double[][] {advantages, returns};
  }

  /**
   * Whitens ragged per-sample arrays together, as TRL's {@code masked_whiten} does over a batch's
   * response tokens: {@code (x − mean) / sqrt(var + 1e-8)} with the unbiased (n − 1) variance over
   * every entry of every row. With fewer than two entries in all, where that variance is undefined
   * (TRL raises), the values come back unchanged.
   */
  public static double[][] whiten(double[][] rows) {
    long count = 0;
    double sum = 0;
    for (double[] row : rows) {
      for (double x : row) {
        sum += x;
        count++;
      }
    }
    double[][] out = new double[rows.length][];
    if (count < 2) {
      for (int i = 0; i < rows.length; i++) {
        out[i] = rows[i].clone();
      }
      return out;
    }
    double mean = sum / count;
    double squares = 0;
    for (double[] row : rows) {
      for (double x : row) {
        squares += (x - mean) * (x - mean);
      }
    }
    double scale = 1 / Math.sqrt(squares / (count - 1) + WHITEN_EPSILON);
    for (int i = 0; i < rows.length; i++) {
      out[i] = new double[rows[i].length];
      for (int t = 0; t < rows[i].length; t++) {
        out[i][t] = (rows[i][t] - mean) * scale;
      }
    }
    return out;
  }
}
