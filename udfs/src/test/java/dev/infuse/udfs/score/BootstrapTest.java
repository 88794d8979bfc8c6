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
