package dev.infuse.udfs.score;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class ScalingCurveTest {
  @Test
  void crossesTheBaselineWhereTheLineReachesIt() {
    ScalingCurve curve = new ScalingCurve(0.1, 0.05);
    Double tokens = curve.crossover(0.6);
    assertThat(tokens).isCloseTo(Math.exp(10), within(1e-6));
    assertThat(curve.at(tokens)).isCloseTo(0.6, within(1e-12));
    assertThat(new ScalingCurve(0.9, -0.01).crossover(0.6)).isNull();
    assertThat(new ScalingCurve(0.1, 0.0).crossover(0.6)).isNull();
    assertThat(curve.crossover(null)).isNull();
  }
}
