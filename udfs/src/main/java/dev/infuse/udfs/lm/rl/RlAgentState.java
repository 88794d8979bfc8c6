package dev.infuse.udfs.lm.rl;

import ai.djl.ndarray.NDManager;
import dev.infuse.udfs.lm.DecoderLm;

/**
 * What one agent carries from one RL iteration to the next: its policy, its value head (null for
 * GRPO), the optimizer's moments and step count, the global update counter (which drives the
 * learning-rate decay) and the iteration number. {@link RlCheckpoints} saves and restores all of
 * it.
 *
 * <p>The policy and value head stay the caller's to close; {@link #close()} frees the optimizer.
 */
public final class RlAgentState implements AutoCloseable {
  private final DecoderLm policy;
  private final ValueHead valueHead;
  private final NDManager manager;
  private final RlOptimizer optimizer;
  private int updates;
  private int iteration;

  private RlAgentState(DecoderLm policy, ValueHead valueHead) {
    this.policy = policy;
    this.valueHead = valueHead;
    this.manager = NDManager.newBaseManager(policy.device(), "PyTorch");
    this.optimizer = new RlOptimizer(RlOptimizer.parametersOf(policy, valueHead), manager);
  }

  /**
   * A fresh state: zero moments, no updates yet, iteration 0.
   *
   * @param valueHead PPO's value head; null for GRPO
   */
  public static RlAgentState create(DecoderLm policy, ValueHead valueHead) {
    return new RlAgentState(policy, valueHead);
  }

  public DecoderLm policy() {
    return policy;
  }

  /** The value head, or null (GRPO). */
  public ValueHead valueHead() {
    return valueHead;
  }

  public RlOptimizer optimizer() {
    return optimizer;
  }

  /** Updates done so far; the next update's 0-based index. */
  public int updates() {
    return updates;
  }

  public void setUpdates(int updates) {
    this.updates = updates;
  }

  /** The caller's iteration number (rollouts then update); names checkpoints. */
  public int iteration() {
    return iteration;
  }

  public void setIteration(int iteration) {
    this.iteration = iteration;
  }

  @Override
  public void close() {
    optimizer.close();
    manager.close();
  }
}
