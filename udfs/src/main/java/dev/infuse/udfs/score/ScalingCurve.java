package dev.infuse.udfs.score;

/**
 * The fitted scaling line {@code accuracy = intercept + slope * ln(tokens)}, and where it reaches a
 * baseline.
 */
public record ScalingCurve(double intercept, double slope) {
  /** The fitted accuracy at {@code tokens}. */
  public double at(double tokens) {
    return intercept + slope * Math.log(tokens);
  }

  /**
   * The token count where the line reaches {@code baseline}: {@code exp((baseline - intercept) /
   * slope)}. Null when the slope is not positive (the line never climbs to it) or there is no
   * baseline. The value may lie outside the fitted range: it is an extrapolation, and the report
   * should say so.
   */
  public Double crossover(Double baseline) {
    if (baseline == null || !(slope > 0)) {
      return null;
    }
    double tokens = Math.exp((baseline - intercept) / slope);
    return Double.isFinite(tokens) ? tokens : null;
  }
}
