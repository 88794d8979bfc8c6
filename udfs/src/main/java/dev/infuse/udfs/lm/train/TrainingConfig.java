package dev.infuse.udfs.lm.train;

import java.util.ArrayList;
import java.util.List;

/**
 * How to train: AdamW with decoupled weight decay, linear warmup then cosine decay of the learning
 * rate, global-norm gradient clipping.
 *
 * @param steps optimizer steps in all, counting those done before a resume
 * @param batchSize sequences per step
 * @param learningRate peak learning rate, reached at the end of warmup
 * @param minLearningRate where the cosine decay ends, at {@code steps}
 * @param warmupSteps steps of linear warmup from 0
 * @param weightDecay decoupled decay, applied to Linear weights only (not to biases, LayerNorm or
 *     embeddings, whose decay only hurts small models)
 * @param beta1 AdamW's first-moment decay
 * @param beta2 AdamW's second-moment decay
 * @param epsilon AdamW's denominator floor
 * @param gradientClip the largest global gradient norm; 0 turns clipping off
 * @param seed orders the data; the model's own seed is separate
 * @param checkpointEvery checkpoint every this many steps; 0 checkpoints only at the end
 * @param maskDocumentBoundaries keep packed documents apart: attention stays inside a document,
 *     positions restart at each, and a document's first token is not predicted from the one before
 */
public record TrainingConfig(
    int steps,
    int batchSize,
    double learningRate,
    double minLearningRate,
    int warmupSteps,
    double weightDecay,
    double beta1,
    double beta2,
    double epsilon,
    double gradientClip,
    long seed,
    int checkpointEvery,
    boolean maskDocumentBoundaries) {

  /**
   * Common choices for small GPTs around the given values: decay to a tenth of the peak, 10% warmup
   * (at most 100 steps), weight decay 0.1, betas 0.9/0.95, clip 1.0, document masking on.
   */
  public static TrainingConfig defaults(
      int steps, int batchSize, double learningRate, long seed, int checkpointEvery) {
    return new TrainingConfig(
        steps,
        batchSize,
        learningRate,
        learningRate / 10,
        Math.min(100, steps / 10),
        0.1,
        0.9,
        0.95,
        1e-8,
        1.0,
        seed,
        checkpointEvery,
        true);
  }

  /** The same training with its data order drawn from {@code newSeed}. */
  public TrainingConfig withSeed(long newSeed) {
    return new TrainingConfig(
        steps,
        batchSize,
        learningRate,
        minLearningRate,
        warmupSteps,
        weightDecay,
        beta1,
        beta2,
        epsilon,
        gradientClip,
        newSeed,
        checkpointEvery,
        maskDocumentBoundaries);
  }

  /** Every invalid value, each naming the field and what was expected; empty when valid. */
  public List<String> problems() {
    List<String> problems = new ArrayList<>();
    if (steps <= 0) {
      problems.add("steps: got " + steps + ", expected a positive integer");
    }
    if (batchSize <= 0) {
      problems.add("batch_size: got " + batchSize + ", expected a positive integer");
    }
    if (!(learningRate > 0) || Double.isInfinite(learningRate)) {
      problems.add("learning_rate: got " + learningRate + ", expected a positive number");
    }
    if (!(minLearningRate >= 0 && minLearningRate <= learningRate)) {
      problems.add(
          "min_learning_rate: got "
              + minLearningRate
              + ", expected 0..learning_rate ("
              + learningRate
              + ")");
    }
    if (warmupSteps < 0 || (steps > 0 && warmupSteps >= steps)) {
      problems.add(
          "warmup_steps: got "
              + warmupSteps
              + ", expected 0.."
              + Math.max(0, steps - 1)
              + " (below steps)");
    }
    if (!(weightDecay >= 0) || Double.isInfinite(weightDecay)) {
      problems.add("weight_decay: got " + weightDecay + ", expected a number >= 0");
    }
    unitInterval(problems, "beta1", beta1);
    unitInterval(problems, "beta2", beta2);
    if (!(epsilon > 0) || Double.isInfinite(epsilon)) {
      problems.add("epsilon: got " + epsilon + ", expected a positive number");
    }
    if (!(gradientClip >= 0) || Double.isInfinite(gradientClip)) {
      problems.add(
          "gradient_clip: got " + gradientClip + ", expected a number >= 0 (0 turns clipping off)");
    }
    if (checkpointEvery < 0) {
      problems.add(
          "checkpoint_every: got "
              + checkpointEvery
              + ", expected >= 0 (0 checkpoints only at the end)");
    }
    return problems;
  }

  private static void unitInterval(List<String> problems, String name, double value) {
    if (!(value >= 0 && value < 1)) {
      problems.add(name + ": got " + value + ", expected a number in [0, 1)");
    }
  }
}
