package dev.infuse.udfs.lm.train;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.nn.Parameter;
import ai.djl.pytorch.jni.JniUtils;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * AdamW (Loshchilov and Hutter) with global-norm gradient clipping, on NDArrays. Written here
 * rather than using DJL's {@code Adam} because that keeps its moments private, and a resumable
 * checkpoint needs them. Weight decay is decoupled and applies to Linear weights only (parameters
 * named {@code *.weight}): biases, LayerNorm and the (tied) embeddings are not decayed.
 *
 * <p>Public so that other trainers (the RL updates in {@code lm.rl}) can share it and its
 * checkpointable moments; they pass their hyperparameters as {@link Settings}.
 */
public final class AdamW implements AutoCloseable {
  private static final String FIRST = "first_moment.";
  private static final String SECOND = "second_moment.";

  private final Map<String, Parameter> parameters;
  private final NDManager manager;
  private final Map<String, NDArray> firstMoments = new LinkedHashMap<>();
  private final Map<String, NDArray> secondMoments = new LinkedHashMap<>();

  /**
   * The optimizer's hyperparameters.
   *
   * @param beta1 first-moment decay
   * @param beta2 second-moment decay
   * @param epsilon denominator floor
   * @param weightDecay decoupled decay of {@code *.weight} parameters
   * @param gradientClip the largest global gradient norm; 0 turns clipping off
   */
  public record Settings(
      double beta1, double beta2, double epsilon, double weightDecay, double gradientClip) {}

  /**
   * Zero moments for {@code parameters} (live arrays, updated in place), kept in a sub-manager of
   * {@code parent}.
   */
  public AdamW(Map<String, Parameter> parameters, NDManager parent) {
    this.parameters = parameters;
    this.manager = parent.newSubManager();
    parameters.forEach(
        (name, parameter) -> {
          firstMoments.put(name, manager.zeros(parameter.getArray().getShape()));
          secondMoments.put(name, manager.zeros(parameter.getArray().getShape()));
        });
  }

  /**
   * Clips the gradients, takes step {@code step} (from 1) at rate {@code learningRate}, and zeroes
   * the gradients for the next step. Call outside the gradient collector, inside an NDScope.
   *
   * @return the global gradient norm before clipping
   */
  double step(int step, double learningRate, TrainingConfig config) {
    return step(
        step,
        learningRate,
        new Settings(
            config.beta1(),
            config.beta2(),
            config.epsilon(),
            config.weightDecay(),
            config.gradientClip()));
  }

  /**
   * As {@link #step(int, double, TrainingConfig)} with explicit settings.
   *
   * @param step the step number, from 1, for the bias corrections
   * @return the global gradient norm before clipping
   */
  public double step(int step, double learningRate, Settings config) {
    // In-place updates of leaf weights are illegal while autograd records. Grad mode is libtorch's
    // thread-local state, and a TorchScript forward on this thread can leave it on, so it is set
    // off
    // here rather than trusted.
    boolean recording = JniUtils.isGradMode();
    JniUtils.setGradMode(false);
    try {
      return update(step, learningRate, config);
    } finally {
      JniUtils.setGradMode(recording);
    }
  }

  private double update(int step, double learningRate, Settings config) {
    Map<String, NDArray> gradients = new LinkedHashMap<>();
    NDArray squares = null;
    for (Map.Entry<String, Parameter> entry : parameters.entrySet()) {
      NDArray gradient = entry.getValue().getArray().getGradient();
      gradients.put(entry.getKey(), gradient);
      NDArray sum = gradient.square().sum();
      squares = squares == null ? sum : squares.add(sum);
    }
    double norm = Math.sqrt(squares.getFloat());
    if (!Double.isFinite(norm)) {
      // The fused float32 sum has come back infinite while every gradient, read again, was finite
      // (seen before GraphConstants, when backward could read freed memory): recompute it once,
      // parameter by parameter, in double, before calling the training diverged.
      norm = Math.sqrt(squareSum(gradients));
    }
    if (!Double.isFinite(norm)) {
      throw new IllegalStateException(
          "gradient norm "
              + norm
              + " at step "
              + step
              + "; non-finite in "
              + nonFinite(gradients)
              + "; lower learning_rate or set gradient_clip");
    }
    double clip =
        config.gradientClip() > 0 && norm > config.gradientClip()
            ? config.gradientClip() / norm
            : 1.0;
    double firstCorrection = 1 - Math.pow(config.beta1(), step);
    double secondCorrection = 1 - Math.pow(config.beta2(), step);
    for (Map.Entry<String, Parameter> entry : parameters.entrySet()) {
      String name = entry.getKey();
      NDArray weights = entry.getValue().getArray();
      NDArray gradient = gradients.get(name).mul((float) clip);
      NDArray first =
          firstMoments
              .get(name)
              .muli((float) config.beta1())
              .addi(gradient.mul((float) (1 - config.beta1())));
      NDArray second =
          secondMoments
              .get(name)
              .muli((float) config.beta2())
              .addi(gradient.square().muli((float) (1 - config.beta2())));
      if (name.endsWith(".weight") && config.weightDecay() > 0) {
        weights.muli((float) (1 - learningRate * config.weightDecay()));
      }
      NDArray denominator =
          second.div((float) secondCorrection).sqrt().addi((float) config.epsilon());
      weights.subi(first.mul((float) (learningRate / firstCorrection)).divi(denominator));
      gradients.get(name).subi(gradients.get(name));
    }
    return norm;
  }

  private static double squareSum(Map<String, NDArray> gradients) {
    double sum = 0;
    for (NDArray gradient : gradients.values()) {
      for (float x : gradient.toFloatArray()) {
        sum += (double) x * x;
      }
    }
    return sum;
  }

  private static java.util.List<String> nonFinite(Map<String, NDArray> gradients) {
    return gradients.entrySet().stream()
        .filter(entry -> !Float.isFinite(entry.getValue().abs().max().getFloat()))
        .map(Map.Entry::getKey)
        .toList();
  }

  /** The moments, named by parameter path, for a checkpoint. */
  public NDList moments() {
    NDList moments = new NDList();
    firstMoments.forEach((name, array) -> moments.add(named(array, FIRST + name)));
    secondMoments.forEach((name, array) -> moments.add(named(array, SECOND + name)));
    return moments;
  }

  /** Restores moments written by {@link #moments()}. */
  public void loadMoments(NDList saved) {
    Map<String, NDArray> byName = new LinkedHashMap<>();
    saved.forEach(array -> byName.put(array.getName(), array));
    restore(byName, FIRST, firstMoments);
    restore(byName, SECOND, secondMoments);
  }

  private static void restore(
      Map<String, NDArray> saved, String prefix, Map<String, NDArray> moments) {
    moments.forEach(
        (name, target) -> {
          NDArray source = saved.get(prefix + name);
          if (source == null || !source.getShape().equals(target.getShape())) {
            throw new IllegalArgumentException(
                "optimizer state: tensor "
                    + prefix
                    + name
                    + (source == null
                        ? " is missing"
                        : " has shape " + source.getShape() + ", expected " + target.getShape()));
          }
          target.set(source.toFloatArray());
        });
  }

  private static NDArray named(NDArray array, String name) {
    array.setName(name);
    return array;
  }

  @Override
  public void close() {
    manager.close();
  }
}
