package dev.infuse.udfs.lm.train;

/** Linear warmup from 0 to the peak, then cosine decay to the minimum at the last step. */
final class LearningRateSchedule {
  private LearningRateSchedule() {}

  /** The rate for {@code step}, counted from 1. */
  static double at(int step, TrainingConfig config) {
    if (step <= config.warmupSteps()) {
      return config.learningRate() * step / config.warmupSteps();
    }
    double progress =
        (double) (step - config.warmupSteps()) / (config.steps() - config.warmupSteps());
    double cosine = 0.5 * (1 + Math.cos(Math.PI * Math.min(1.0, progress)));
    return config.minLearningRate() + (config.learningRate() - config.minLearningRate()) * cosine;
  }
}
