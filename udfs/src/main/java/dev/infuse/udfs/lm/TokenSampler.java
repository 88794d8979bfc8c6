package dev.infuse.udfs.lm;

import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * Picks the next token from one row's logits on the host. Done in Java with the row's own random
 * stream, in double precision and a fixed order, so a row's choice depends on its logits and seed
 * alone, never on which other rows share the batch or on the device's sampling kernels.
 */
final class TokenSampler {
  private TokenSampler() {}

  /**
   * @param logits the whole batch's last-position logits, row-major
   * @param offset where this row starts in {@code logits}
   * @param vocab entries per row
   */
  static int next(
      float[] logits, int offset, int vocab, GenerationOptions options, SplittableRandom random) {
    if (options.isGreedy()) {
      return argmax(logits, offset, vocab);
    }
    double max = Double.NEGATIVE_INFINITY;
    for (int v = 0; v < vocab; v++) {
      max = Math.max(max, logits[offset + v]);
    }
    double[] weights = new double[vocab];
    double total = 0;
    for (int v = 0; v < vocab; v++) {
      double w = Math.exp((logits[offset + v] - max) / options.temperature());
      weights[v] = Double.isNaN(w) ? 0 : w;
      total += weights[v];
    }
    if (!(total > 0)) {
      return argmax(logits, offset, vocab);
    }
    Integer[] order = new Integer[vocab];
    for (int v = 0; v < vocab; v++) {
      order[v] = v;
    }
    int kept = vocab;
    if (options.topP() < 1) {
      // Nucleus: the most likely tokens (ties by id) until their mass reaches top_p.
      Arrays.sort(
          order,
          (a, b) ->
              weights[a] != weights[b]
                  ? Double.compare(weights[b], weights[a])
                  : Integer.compare(a, b));
      double mass = 0;
      kept = 0;
      while (kept < vocab && mass < options.topP() * total) {
        mass += weights[order[kept++]];
      }
      total = mass;
    }
    double draw = random.nextDouble() * total;
    double cumulative = 0;
    for (int i = 0; i < kept; i++) {
      cumulative += weights[order[i]];
      if (draw < cumulative) {
        return order[i];
      }
    }
    // Rounding left the draw past the last kept weight: take the last kept token with any weight.
    for (int i = kept - 1; i >= 0; i--) {
      if (weights[order[i]] > 0) {
        return order[i];
      }
    }
    return order[0];
  }

  /** The highest logit; the lowest id wins a tie. */
  static int argmax(float[] logits, int offset, int vocab) {
    int best = 0;
    for (int v = 1; v < vocab; v++) {
      if (logits[offset + v] > logits[offset + best]) {
        best = v;
      }
    }
    return best;
  }
}
