package dev.infuse.udfs.lm;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.types.Shape;

/**
 * Arithmetic with a constant, for arrays that autograd records.
 *
 * <p>DJL's {@code NDArray.mul(Number)} and its kin wrap the constant in a 0-d tensor whose memory
 * is a Java direct buffer, run the operation, and close that tensor. Autograd keeps the tensor for
 * the backward pass ({@code d(x * c)/dx} needs {@code c}), but once it is closed nothing on the
 * Java side holds the buffer: a garbage collection between forward and backward frees the memory
 * under it, and backward reads whatever was allocated there next. Training then diverged now and
 * then in a busy driver (netty and Spark churn direct buffers) while every loss up to that step
 * matched. The constants made here are libtorch's own ({@code torch.full}), which the recorded
 * graph keeps alive by reference count.
 */
public final class GraphConstants {
  private GraphConstants() {}

  /** {@code x * c}. */
  public static NDArray times(NDArray x, float c) {
    try (NDArray constant = constant(x, c)) {
      return x.mul(constant);
    }
  }

  /** {@code x / c}. */
  public static NDArray dividedBy(NDArray x, float c) {
    try (NDArray constant = constant(x, c)) {
      return x.div(constant);
    }
  }

  /** Elementwise {@code max(x, c)}. */
  public static NDArray maximum(NDArray x, float c) {
    try (NDArray constant = constant(x, c)) {
      return x.maximum(constant);
    }
  }

  private static NDArray constant(NDArray like, float c) {
    return like.getManager()
        .full(new Shape(), c, like.getDataType())
        .toDevice(like.getDevice(), false);
  }
}
