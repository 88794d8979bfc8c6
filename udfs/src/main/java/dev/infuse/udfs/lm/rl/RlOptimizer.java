package dev.infuse.udfs.lm.rl;

import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.nn.Parameter;
import dev.infuse.udfs.lm.train.AdamW;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * AdamW over a policy's parameters and its value head's, with the count of steps taken (for Adam's
 * bias corrections), so both survive a checkpoint.
 *
 * <p>The reference builds {@code torch.optim.AdamW(lr)} with PyTorch's defaults: betas (0.9,
 * 0.999), eps 1e-8, weight decay 0.01. Infuse's AdamW decays only {@code *.weight} parameters (not
 * biases, LayerNorm or the tied embedding); PyTorch's decays every parameter.
 */
public final class RlOptimizer implements AutoCloseable {
  public static final double BETA1 = 0.9;
  public static final double BETA2 = 0.999;
  public static final double EPSILON = 1e-8;
  public static final double WEIGHT_DECAY = 0.01;

  private final AdamW adamW;
  private final Map<String, Parameter> parameters;
  private int steps;

  /** Fresh moments for {@code parameters}, kept under {@code parent}. */
  public RlOptimizer(Map<String, Parameter> parameters, NDManager parent) {
    this.parameters = Collections.unmodifiableMap(new LinkedHashMap<>(parameters));
    this.adamW = new AdamW(this.parameters, parent);
  }

  /** The parameters of {@code policy} and, if not null, {@code head}, in one map. */
  public static Map<String, Parameter> parametersOf(
      dev.infuse.udfs.lm.DecoderLm policy, ValueHead head) {
    Map<String, Parameter> all = new LinkedHashMap<>(policy.parameters());
    if (head != null) {
      all.putAll(head.parameters());
    }
    return all;
  }

  /** The parameters it updates. */
  public Map<String, Parameter> parameters() {
    return parameters;
  }

  /** Optimizer steps taken so far. */
  public int steps() {
    return steps;
  }

  /** Sets the step count, when restoring a checkpoint. */
  public void setSteps(int steps) {
    this.steps = steps;
  }

  /**
   * One AdamW step at {@code learningRate}, zeroing the gradients; call outside the gradient
   * collector.
   *
   * @return the global gradient norm before clipping
   */
  public double step(double learningRate, double gradientClip) {
    steps++;
    return adamW.step(
        steps, learningRate, new AdamW.Settings(BETA1, BETA2, EPSILON, WEIGHT_DECAY, gradientClip));
  }

  /** The moments, named {@code first_moment.<param>} and {@code second_moment.<param>}. */
  public NDList moments() {
    return adamW.moments();
  }

  /** Restores moments written by {@link #moments()}. */
  public void loadMoments(NDList saved) {
    adamW.loadMoments(saved);
  }

  @Override
  public void close() {
    adamW.close();
  }
}
