package dev.infuse.udfs.dedup;

import java.io.Serializable;
import java.util.Arrays;

/**
 * MinHash signatures: {@code numPermutations} seeded hash functions {@code h_i(x) = mix(a_i·x +
 * b_i)} (mod 2^64, {@code a_i} odd, {@code mix} the MurmurHash3 finaliser), and a signature holds
 * each function's minimum over a shingle set. {@code a·x + b} with odd {@code a} is a bijection on
 * longs and the finaliser makes the order of the images look random, so each position agrees
 * between two sets with probability ≈ their Jaccard similarity.
 *
 * <p>The constants derive only from (seed, numPermutations): every executor builds the same hasher,
 * and the same seed gives the same signatures in every run. Instances are immutable and
 * thread-safe.
 */
public final class MinHasher implements Serializable {
  private static final long serialVersionUID = 1L;

  private final long seed;
  private final long[] multipliers;
  private final long[] offsets;

  public MinHasher(int numPermutations, long seed) {
    if (numPermutations < 1) {
      throw new IllegalArgumentException(
          "num_permutations: got " + numPermutations + ", expected >= 1");
    }
    this.seed = seed;
    this.multipliers = new long[numPermutations];
    this.offsets = new long[numPermutations];
    for (int i = 0; i < numPermutations; i++) {
      multipliers[i] = Hashing64.splitMix(seed, 2L * i) | 1L;
      offsets[i] = Hashing64.splitMix(seed, 2L * i + 1);
    }
  }

  public int numPermutations() {
    return multipliers.length;
  }

  public long seed() {
    return seed;
  }

  /**
   * The signature of a shingle set. An empty set has every position at {@link Long#MAX_VALUE};
   * callers should not band such signatures (see {@link #isEmpty}), or all empty texts would match.
   */
  public long[] signature(long[] shingles) {
    int n = multipliers.length;
    long[] minima = new long[n];
    Arrays.fill(minima, Long.MAX_VALUE);
    for (long shingle : shingles) {
      for (int i = 0; i < n; i++) {
        long h = Hashing64.mix(multipliers[i] * shingle + offsets[i]);
        if (h < minima[i]) {
          minima[i] = h;
        }
      }
    }
    return minima;
  }

  /** True for the signature of an empty shingle set. */
  public static boolean isEmpty(long[] signature) {
    for (long value : signature) {
      if (value != Long.MAX_VALUE) {
        return false;
      }
    }
    return true;
  }

  /**
   * The share of positions on which two signatures agree: an unbiased estimate of Jaccard
   * similarity.
   */
  public static double estimatedJaccard(long[] a, long[] b) {
    if (a.length != b.length) {
      throw new IllegalArgumentException(
          "signatures differ in length: "
              + a.length
              + " and "
              + b.length
              + "; expected the same num_permutations");
    }
    int agree = 0;
    for (int i = 0; i < a.length; i++) {
      if (a[i] == b[i]) {
        agree++;
      }
    }
    return a.length == 0 ? 0.0 : (double) agree / a.length;
  }
}
