package dev.infuse.udfs.lm.train;

/**
 * How a {@link Trainer#train} call ended.
 *
 * @param finalStep the configured {@code steps}, or the checkpoint's step when a resume found one
 *     already past them (the model then holds that checkpoint's weights)
 * @param finalLoss the loss of that step (NaN when a resume found training already finished and the
 *     checkpoint recorded none)
 * @param resumedFromStep the checkpoint step this call resumed from, or -1 when it started afresh
 */
public record TrainingResult(int finalStep, double finalLoss, int resumedFromStep) {}
