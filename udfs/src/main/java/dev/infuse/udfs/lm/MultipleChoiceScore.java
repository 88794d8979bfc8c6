package dev.infuse.udfs.lm;

import java.util.List;

/**
 * One multiple-choice question scored the lm-evaluation-harness way.
 *
 * @param choices each option's log-likelihood, in option order
 * @param acc the option with the highest log-likelihood (the first on a tie, like {@code
 *     np.argmax})
 * @param accNorm the option with the highest log-likelihood divided by the option text's length in
 *     characters (Unicode code points, Python's {@code len}, the target delimiter not counted)
 */
public record MultipleChoiceScore(List<LogLikelihood> choices, int acc, int accNorm) {
  public MultipleChoiceScore {
    choices = List.copyOf(choices);
  }
}
