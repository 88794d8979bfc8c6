package dev.infuse.jobs.score;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.infuse.jobs.SparkTestSession;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.junit.jupiter.api.Test;

class FitScalingJobTest {
  @Test
  void recoversAKnownSlopeFromNoisyPointsWithinItsStandardError() {
    double trueSlope = 0.035;
    double trueIntercept = 0.05;
    SplittableRandom random = new SplittableRandom(7);
    List<Row> points = new ArrayList<>();
    double[] x = new double[12];
    double[] y = new double[12];
    for (int i = 0; i < 12; i++) {
      long tokens = Math.round(1000 * Math.pow(3, i));
      x[i] = Math.log(tokens);
      // Gaussian noise, sd 0.01, by Box-Muller from the seeded stream.
      double noise =
          0.01
              * Math.sqrt(-2 * Math.log(1 - random.nextDouble()))
              * Math.cos(2 * Math.PI * random.nextDouble());
      y[i] = trueIntercept + trueSlope * x[i] + noise;
      points.add(RowFactory.create("r" + i, tokens, y[i]));
    }
    FitScalingJob.Fit fit = FitScalingJob.fit(SparkTestSession.get(), points);
    assertThat(fit.slopeSe()).isNotNull().isPositive();
    assertThat(Math.abs(fit.slope() - trueSlope)).isLessThanOrEqualTo(3 * fit.slopeSe());
    assertThat(fit.r2()).isGreaterThan(0.95);

    // The same numbers as closed-form least squares, and the textbook slope SE sqrt(s^2 / Sxx).
    double mx = mean(x);
    double my = mean(y);
    double sxx = 0;
    double sxy = 0;
    for (int i = 0; i < x.length; i++) {
      sxx += (x[i] - mx) * (x[i] - mx);
      sxy += (x[i] - mx) * (y[i] - my);
    }
    double slope = sxy / sxx;
    double intercept = my - slope * mx;
    double rss = 0;
    for (int i = 0; i < x.length; i++) {
      double r = y[i] - intercept - slope * x[i];
      rss += r * r;
    }
    assertThat(fit.slope()).isCloseTo(slope, within(1e-9));
    assertThat(fit.intercept()).isCloseTo(intercept, within(1e-9));
    assertThat(fit.slopeSe()).isCloseTo(Math.sqrt(rss / (x.length - 2) / sxx), within(1e-9));
  }

  @Test
  void twoPointsFitExactlyWithNoStandardError() {
    FitScalingJob.Fit fit =
        FitScalingJob.fit(
            SparkTestSession.get(),
            List.of(RowFactory.create("a", 100L, 0.3), RowFactory.create("b", 10_000L, 0.5)));
    assertThat(fit.slope()).isCloseTo(0.2 / Math.log(100), within(1e-9));
    assertThat(fit.slopeSe()).isNull();
  }

  private static double mean(double[] values) {
    double sum = 0;
    for (double v : values) {
      sum += v;
    }
    return sum / values.length;
  }
}
