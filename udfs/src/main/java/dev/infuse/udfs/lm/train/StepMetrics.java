package dev.infuse.udfs.lm.train;

/**
 * What one optimizer step did.
 *
 * @param step the step just taken, from 1
 * @param loss mean next-token cross-entropy over this step's target tokens, in nats
 * @param learningRate the rate this step used
 * @param gradNorm the global gradient norm before clipping
 * @param tokens real (non-pad) input tokens in this step's batch
 * @param tokensPerSecond {@code tokens} over this step's wall time
 * @param wallSeconds seconds since this run (not the whole training, if resumed) began
 */
public record StepMetrics(
    int step,
    double loss,
    double learningRate,
    double gradNorm,
    long tokens,
    double tokensPerSecond,
    double wallSeconds) {}
