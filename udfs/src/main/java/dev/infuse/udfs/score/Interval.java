package dev.infuse.udfs.score;

/**
 * A point estimate with a percentile bootstrap confidence interval.
 *
 * @param value the statistic on the sample itself (the mean)
 * @param low the lower percentile of the bootstrap distribution
 * @param high the upper percentile
 * @param n the sample size
 */
public record Interval(double value, double low, double high, long n) {}
