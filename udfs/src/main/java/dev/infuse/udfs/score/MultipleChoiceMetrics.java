package dev.infuse.udfs.score;

import java.util.List;

/**
 * lm-evaluation-harness multiple-choice metrics from per-option log-likelihoods: {@code acc} picks
 * the option with the highest log-likelihood, {@code acc_norm} the highest log-likelihood divided
 * by the option text's length in characters ({@code len(choice)} in Python: Unicode code points,
 * the target delimiter not counted). Ties go to the first option, as {@code np.argmax} does. This
 * is the one place the rule lives: {@code LogLikelihoodScorer} and the {@code score} job both call
 * it.
 */
public final class MultipleChoiceMetrics {
  private MultipleChoiceMetrics() {}

  /** The option {@code acc} picks. */
  public static int acc(double[] logLikelihoods) {
    check(logLikelihoods, null);
    int best = 0;
    for (int i = 1; i < logLikelihoods.length; i++) {
      if (logLikelihoods[i] > logLikelihoods[best]) {
        best = i;
      }
    }
    return best;
  }

  /** The option {@code acc_norm} picks: the argmax of log-likelihood / characters of the option. */
  public static int accNorm(double[] logLikelihoods, List<String> options) {
    check(logLikelihoods, options);
    int best = 0;
    double bestValue = normalized(logLikelihoods, options, 0);
    for (int i = 1; i < logLikelihoods.length; i++) {
      double value = normalized(logLikelihoods, options, i);
      if (value > bestValue) {
        best = i;
        bestValue = value;
      }
    }
    return best;
  }

  /** Option {@code i}'s log-likelihood per character. */
  public static double normalized(double[] logLikelihoods, List<String> options, int i) {
    String option = options.get(i);
    return logLikelihoods[i] / option.codePointCount(0, option.length());
  }

  private static void check(double[] logLikelihoods, List<String> options) {
    if (logLikelihoods == null || logLikelihoods.length == 0) {
      throw new IllegalArgumentException(
          "option log-likelihoods: got none, expected one per option");
    }
    if (options == null) {
      return;
    }
    if (options.size() != logLikelihoods.length) {
      throw new IllegalArgumentException(
          "options: got "
              + options.size()
              + " for "
              + logLikelihoods.length
              + " log-likelihoods, expected one per log-likelihood");
    }
    for (int i = 0; i < options.size(); i++) {
      if (options.get(i) == null || options.get(i).isEmpty()) {
        throw new IllegalArgumentException(
            "option "
                + i
                + ": got an empty option, expected text (acc_norm divides by its length)");
      }
    }
  }
}
