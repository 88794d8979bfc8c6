package dev.infuse.udfs.score;

import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * Seeded percentile bootstrap of a mean, and the paired bootstrap of a difference of means.
 *
 * <p>Reproducible: the resampled indices come from a {@link SplittableRandom} seeded with the
 * caller's seed (the {@code score} job derives it from the run seed and the score's key), and the
 * sample is used in the order given, so callers sort it by question id first.
 *
 * <p>The percentile interval at confidence c takes the (1-c)/2 and (1+c)/2 quantiles of the R
 * bootstrap means, interpolated linearly between the two order statistics around position {@code q
 * * (R - 1)} (numpy's default "linear" method).
 */
public final class Bootstrap {
  private final int resamples;
  private final double confidence;

  /**
   * @param resamples bootstrap resamples, at least 100 (1000 is usual; 10000 for p-values near
   *     0.001)
   * @param confidence the interval's nominal coverage, strictly between 0 and 1 (0.95)
   */
  public Bootstrap(int resamples, double confidence) {
    if (resamples < 100) {
      throw new IllegalArgumentException(
          "bootstrap resamples: got " + resamples + ", expected at least 100");
    }
    if (!(confidence > 0 && confidence < 1)) {
      throw new IllegalArgumentException(
          "confidence: got " + confidence + ", expected a fraction strictly between 0 and 1");
    }
    this.resamples = resamples;
    this.confidence = confidence;
  }

  public int resamples() {
    return resamples;
  }

  public double confidence() {
    return confidence;
  }

  /** The mean of {@code values} with its percentile bootstrap interval. */
  public Interval mean(double[] values, long seed) {
    if (values.length == 0) {
      throw new IllegalArgumentException("values: got none, expected at least one to bootstrap");
    }
    double[] means = resampledMeans(values, seed);
    return new Interval(
        mean(values),
        quantile(means, (1 - confidence) / 2),
        quantile(means, (1 + confidence) / 2),
        values.length);
  }

  /**
   * Paired bootstrap of {@code mean(b) - mean(a)}, where {@code a[i]} and {@code b[i]} are the same
   * question under two settings: whole questions are resampled, so the correlation between the
   * settings is kept and the interval is narrower than two independent ones.
   *
   * <p>The p-value is two-sided and tests "no difference" by the shifted bootstrap (Efron and
   * Tibshirani, An Introduction to the Bootstrap, 16.4): the bootstrap differences centred on the
   * observed one approximate the null distribution, and {@code p = (1 + #{r : |d*_r - d| >= |d|}) /
   * (R + 1)}, where d is the observed mean difference and d*_r the r-th resample's. The +1 counts
   * the observed sample itself, so p is never 0 and is at least 1/(R+1); with d = 0 it is 1.
   */
  public PairedDifference paired(double[] a, double[] b, long seed) {
    if (a.length != b.length) {
      throw new IllegalArgumentException(
          "paired samples: got "
              + a.length
              + " and "
              + b.length
              + " values, expected the same questions in both");
    }
    if (a.length == 0) {
      throw new IllegalArgumentException(
          "paired samples: got none, expected at least one paired question");
    }
    double[] d = new double[a.length];
    for (int i = 0; i < d.length; i++) {
      d[i] = b[i] - a[i];
    }
    double observed = mean(d);
    double[] diffs = resampledMeans(d, seed);
    long extreme = 0;
    // A tiny slack so that resamples equal to the observed difference up to rounding count as
    // extreme.
    double bound = Math.abs(observed) - 1e-12;
    for (double diff : diffs) {
      if (Math.abs(diff - observed) >= bound) {
        extreme++;
      }
    }
    double p = (1.0 + extreme) / (resamples + 1.0);
    return new PairedDifference(
        mean(a),
        mean(b),
        observed,
        quantile(diffs, (1 - confidence) / 2),
        quantile(diffs, (1 + confidence) / 2),
        p,
        a.length);
  }

  private double[] resampledMeans(double[] values, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    int n = values.length;
    double[] means = new double[resamples];
    for (int r = 0; r < resamples; r++) {
      double sum = 0;
      for (int i = 0; i < n; i++) {
        sum += values[random.nextInt(n)];
      }
      means[r] = sum / n;
    }
    Arrays.sort(means);
    return means;
  }

  private static double mean(double[] values) {
    double sum = 0;
    for (double v : values) {
      sum += v;
    }
    return sum / values.length;
  }

  /** The q-quantile of sorted values, linear between order statistics (numpy's default). */
  static double quantile(double[] sorted, double q) {
    double position = q * (sorted.length - 1);
    int below = (int) Math.floor(position);
    int above = Math.min(sorted.length - 1, below + 1);
    double weight = position - below;
    return sorted[below] + weight * (sorted[above] - sorted[below]);
  }
}
