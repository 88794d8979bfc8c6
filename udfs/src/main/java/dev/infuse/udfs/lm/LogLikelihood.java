package dev.infuse.udfs.lm;

/**
 * The answer to one {@link LogLikelihoodRequest}, as the harness reports it.
 *
 * @param logLikelihood the sum of the continuation tokens' log-probabilities (natural log)
 * @param isGreedy whether every continuation token is the model's argmax at its position
 * @param continuationTokens how many tokens the continuation encoded to
 */
public record LogLikelihood(double logLikelihood, boolean isGreedy, int continuationTokens) {}
