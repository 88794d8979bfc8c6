package dev.infuse.udfs.score;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class BootstrapTest {
  private final Bootstrap bootstrap = new Bootstrap(1000, 0.95);

  @Test
  void theSameSeedGivesTheSameIntervalAndAnotherSeedADifferentOne() {
    double[] values = bernoulli(0.6, 200, 7);
    Interval a = bootstrap.mean(values, 42);
    Interval b = bootstrap.mean(values, 42);
    Interval c = bootstrap.mean(values, 43);
    assertThat(a).isEqualTo(b);
    assertThat(c).isNotEqualTo(a);
    assertThat(a.n()).isEqualTo(200);
    assertThat(a.low()).isLessThan(a.value());
    assertThat(a.high()).isGreaterThan(a.value());
    // The width is about 2 * 1.96 * sqrt(p(1-p)/n) = 0.136 for p near 0.6 and n = 200.
    assertThat(a.high() - a.low()).isCloseTo(0.136, within(0.03));
  }

  @Test
  void theNinetyFivePercentIntervalCoversTheTrueMeanAtAboutTheNominalRate() {
    double p = 0.3;
    int trials = 200;
    int covered = 0;
    for (int t = 0; t < trials; t++) {
      Interval interval = bootstrap.mean(bernoulli(p, 150, 1000 + t), t);
      if (interval.low() <= p && p <= interval.high()) {
        covered++;
      }
    }
    assertThat(covered / (double) trials).isBetween(0.90, 0.99);
  }

  @Test
  void theNinetyFivePercentIntervalOfALargeBernoulliSampleIsTheNormalOne() {
    // With k ones among n values, a bootstrap mean is Binomial(n, k/n) / n: nearly normal with sd
    // sqrt(p(1-p)/n), so its 2.5% and 97.5% percentiles are p -+ 1.96 sd. The tolerance, 0.1 sd,
    // is a third of the gap to a 90% interval's p -+ 1.645 sd (0.315 sd away); the percentiles of
    // R = 10000 resamples are within about 0.03 sd (their standard error) of the exact ones.
    int n = 5000;
    double[] values = new double[n];
    for (int i = 0; i < 1500; i++) {
      values[i] = 1;
    }
    double p = 0.3;
    double sd = Math.sqrt(p * (1 - p) / n);
    double z = 1.959964;
    Bootstrap large = new Bootstrap(10_000, 0.95);
    for (long seed : new long[] {1, 2}) {
      Interval interval = large.mean(values, seed);
      assertThat(interval.value()).isCloseTo(p, within(1e-12));
      assertThat(interval.low()).as("low, seed %d", seed).isCloseTo(p - z * sd, within(0.1 * sd));
      assertThat(interval.high()).as("high, seed %d", seed).isCloseTo(p + z * sd, within(0.1 * sd));
    }
  }

  @Test
  void theNinetyFivePercentIntervalCoversTheTrueMeanAtTheNominalRate() {
    // 2000 seeded repetitions; the number that cover p is Binomial(2000, 0.95) for a 95% interval:
    // sd = sqrt(0.95 * 0.05 / 2000) = 0.0049, so 3 sd is 0.0146. A 90% interval covers about 0.90
    // of the time, 10 sd below. p is off the 1/n lattice, so no interval ends on it exactly.
    double p = 0.3141;
    int n = 300;
    int reps = 2000;
    int covered = 0;
    for (int t = 0; t < reps; t++) {
      Interval interval = bootstrap.mean(bernoulli(p, n, 10_000 + t), 20_000 + t);
      if (interval.low() <= p && p <= interval.high()) {
        covered++;
      }
    }
    double tolerance = 3 * Math.sqrt(0.95 * 0.05 / reps);
    assertThat(covered / (double) reps).isCloseTo(0.95, within(tolerance));
  }

  @Test
  void quantilesInterpolateLikeNumpy() {
    double[] sorted = {0, 1, 2, 3, 4};
    assertThat(Bootstrap.quantile(sorted, 0.5)).isEqualTo(2.0);
    assertThat(Bootstrap.quantile(sorted, 0.125)).isEqualTo(0.5);
    assertThat(Bootstrap.quantile(sorted, 1.0)).isEqualTo(4.0);
  }

  @Test
  void pairedBootstrapFindsARealDifference() {
    // b answers correctly everything a does, plus 30 of the 200 questions a misses.
    double[] a = bernoulli(0.5, 200, 3);
    double[] b = a.clone();
    int flipped = 0;
    for (int i = 0; i < b.length && flipped < 30; i++) {
      if (b[i] == 0) {
        b[i] = 1;
        flipped++;
      }
    }
    PairedDifference d = bootstrap.paired(a, b, 11);
    assertThat(d.diff()).isCloseTo(0.15, within(1e-12));
    assertThat(d.valueB() - d.valueA()).isCloseTo(d.diff(), within(1e-12));
    assertThat(d.low()).isGreaterThan(0);
    assertThat(d.pValue()).isLessThan(0.01);
    assertThat(d.pValue()).isGreaterThanOrEqualTo(1.0 / 1001);
    assertThat(bootstrap.paired(a, b, 11)).isEqualTo(d);
  }

  @Test
  void pairedBootstrapFindsNothingWhenTheSettingsAreExchangeable() {
    // Two independent draws from the same accuracy: the null is true.
    int rejected = 0;
    for (int t = 0; t < 40; t++) {
      PairedDifference d =
          bootstrap.paired(bernoulli(0.6, 150, 500 + t), bernoulli(0.6, 150, 900 + t), t);
      if (d.pValue() < 0.05) {
        rejected++;
      }
      assertThat(d.low()).isLessThanOrEqualTo(d.diff());
      assertThat(d.high()).isGreaterThanOrEqualTo(d.diff());
    }
    // About 5% of 40 = 2 expected; 7 or more would happen by chance far less than 1% of the time.
    assertThat(rejected).isLessThanOrEqualTo(6);
    double[] same = bernoulli(0.6, 100, 1);
    assertThat(bootstrap.paired(same, same.clone(), 1).pValue()).isEqualTo(1.0);
  }

  @Test
  void pairedPValueOfAConstantDifferenceIsTheSmallestPossible() {
    // b is right and a wrong on every question: every resampled difference is the observed d = 1,
    // so |d*_r - d| = 0 < |d| for all R = 1000 resamples, and p = (1 + 0) / (R + 1).
    PairedDifference d = bootstrap.paired(new double[] {0, 0, 0, 0}, new double[] {1, 1, 1, 1}, 5);
    assertThat(d.diff()).isEqualTo(1.0);
    assertThat(d.low()).isEqualTo(1.0);
    assertThat(d.high()).isEqualTo(1.0);
    assertThat(d.pValue()).isEqualTo(1.0 / 1001);
  }

  @Test
  void pairedPValueOnThreeQuestionsIsTheOneComputedByHand() {
    // a = (0, 1, 1), b = (1, 1, 1): the differences are (1, 0, 0) and d = 1/3. A resample that
    // draws question 1 j times (of 3) has d* = j/3, and |j/3 - 1/3| >= 1/3 for every j but 1. So
    // a resample is as extreme as the data unless it draws question 1 exactly once, which happens
    // with probability 3 (1/3) (2/3)^2 = 12/27: the two-sided p is 15/27 up to resampling noise.
    double[] a = {0, 1, 1};
    double[] b = {1, 1, 1};
    long seed = 77;
    PairedDifference d = bootstrap.paired(a, b, seed);
    assertThat(d.valueA()).isCloseTo(2 / 3.0, within(1e-12));
    assertThat(d.valueB()).isEqualTo(1.0);
    assertThat(d.diff()).isCloseTo(1 / 3.0, within(1e-12));
    // The count of extreme resamples is Binomial(1000, 15/27): within 4 sd of its mean.
    double exact = 15 / 27.0;
    assertThat(d.pValue()).isCloseTo(exact, within(4 * Math.sqrt(exact * (1 - exact) / 1000)));

    // Exactly: replay the bootstrap's draws (R resamples of 3 indices from SplittableRandom(seed))
    // and count the resamples that do not draw question 1 exactly once; p = (1 + count) / (R + 1).
    SplittableRandom random = new SplittableRandom(seed);
    int extreme = 0;
    for (int r = 0; r < 1000; r++) {
      int j = 0;
      for (int i = 0; i < 3; i++) {
        if (random.nextInt(3) == 0) {
          j++;
        }
      }
      if (j != 1) {
        extreme++;
      }
    }
    assertThat(d.pValue()).isEqualTo((1.0 + extreme) / 1001);
  }

  @Test
  void rejectsBadSettingsAndUnpairedSamples() {
    assertThatThrownBy(() -> new Bootstrap(10, 0.95)).hasMessageContaining("resamples: got 10");
    assertThatThrownBy(() -> new Bootstrap(1000, 1.0)).hasMessageContaining("confidence: got 1.0");
    assertThatThrownBy(() -> bootstrap.paired(new double[2], new double[3], 0))
        .hasMessageContaining("got 2 and 3");
  }

  private static double[] bernoulli(double p, int n, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    double[] values = new double[n];
    for (int i = 0; i < n; i++) {
      values[i] = random.nextDouble() < p ? 1 : 0;
    }
    return values;
  }
}
