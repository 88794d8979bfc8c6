package dev.infuse.udfs.score;

/**
 * A paired bootstrap comparison of setting b against setting a on the same questions.
 *
 * @param valueA the mean of a
 * @param valueB the mean of b
 * @param diff {@code valueB - valueA}
 * @param low the lower percentile of the bootstrapped difference
 * @param high the upper percentile
 * @param pValue two-sided bootstrap p-value of "no difference", see {@link Bootstrap#paired}
 * @param n the number of paired questions
 */
public record PairedDifference(
    double valueA, double valueB, double diff, double low, double high, double pValue, long n) {}
