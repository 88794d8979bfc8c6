package dev.infuse.udfs.lm.rl;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import java.util.List;

/**
 * Prompt + response rows, right-padded to the longest, as model inputs; and the map between
 * per-sample response arrays and [B, width] grids.
 *
 * <p>A response token at sequence position {@code p} is predicted by the logits at {@code p − 1}:
 * {@link #PREDICTING} grids (width T − 1) hold it there, as TRL's {@code logits[:, context_length −
 * 1 : −1]} does; the value of the state before a token is read at the same position. {@link
 * #AT_TOKEN} grids (width T) hold it at {@code p} itself, where a verifier scores it.
 */
final class SequenceBatch {
  /** Slot of response token i: prompt length + i − 1. */
  static final int PREDICTING = -1;

  /** Slot of response token i: prompt length + i. */
  static final int AT_TOKEN = 0;

  final int rows;
  final int length;
  final int[] promptLengths;
  final int[] responseLengths;
  final NDArray tokens;
  final NDArray positions;
  final NDArray attention;
  private final NDManager manager;

  SequenceBatch(List<int[]> prompts, List<int[]> responses, int padId, NDManager manager) {
    this.manager = manager;
    rows = prompts.size();
    promptLengths = new int[rows];
    responseLengths = new int[rows];
    int longest = 0;
    for (int b = 0; b < rows; b++) {
      promptLengths[b] = prompts.get(b).length;
      responseLengths[b] = responses.get(b).length;
      longest = Math.max(longest, promptLengths[b] + responseLengths[b]);
    }
    length = longest;
    long[] ids = new long[rows * length];
    long[] pos = new long[rows * length];
    boolean[] allowed = new boolean[rows * length * length];
    for (int b = 0; b < rows; b++) {
      int real = promptLengths[b] + responseLengths[b];
      for (int t = 0; t < length; t++) {
        int cell = b * length + t;
        if (t < promptLengths[b]) {
          ids[cell] = prompts.get(b)[t];
        } else if (t < real) {
          ids[cell] = responses.get(b)[t - promptLengths[b]];
        } else {
          ids[cell] = padId;
        }
        pos[cell] = t < real ? t : 0;
        // Causal over real keys; a pad query sees the real prefix, so no row is empty.
        for (int j = 0; j <= t && j < real; j++) {
          allowed[(b * length + t) * length + j] = true;
        }
      }
    }
    Shape cells = new Shape(rows, length);
    tokens = manager.create(ids, cells);
    positions = manager.create(pos, cells);
    attention = manager.create(allowed, new Shape(rows, length, length));
  }

  /** Grid width for a slot kind. */
  int width(int shift) {
    return shift == PREDICTING ? length - 1 : length;
  }

  /** float32 [B, width]: 1 at the response slots, 0 elsewhere. */
  NDArray mask(int shift) {
    double[][] ones = new double[rows][];
    for (int b = 0; b < rows; b++) {
      ones[b] = new double[responseLengths[b]];
      java.util.Arrays.fill(ones[b], 1.0);
    }
    return grid(ones, shift);
  }

  /** float32 [B, width] holding {@code perSample[b][i]} at response token i's slot, 0 elsewhere. */
  NDArray grid(double[][] perSample, int shift) {
    int width = width(shift);
    float[] cells = new float[rows * width];
    for (int b = 0; b < rows; b++) {
      for (int i = 0; i < responseLengths[b]; i++) {
        cells[b * width + promptLengths[b] + i + shift] = (float) perSample[b][i];
      }
    }
    return manager.create(cells, new Shape(rows, width));
  }

  /** The response slots of a [B, width] grid, per sample. */
  double[][] extract(NDArray grid, int shift) {
    int width = width(shift);
    float[] cells = grid.toType(DataType.FLOAT32, false).toFloatArray();
    double[][] out = new double[rows][];
    for (int b = 0; b < rows; b++) {
      out[b] = new double[responseLengths[b]];
      for (int i = 0; i < responseLengths[b]; i++) {
        out[b][i] = cells[b * width + promptLengths[b] + i + shift];
      }
    }
    return out;
  }

  /** The first T − 1 positions of [B, T, ...]: those that predict a next token. */
  NDArray predicting(NDArray perPosition) {
    return perPosition.get(":, :{}", length - 1);
  }

  /**
   * float32 [B, T − 1]: log-probability of each next token under {@code logits} [B, T, V]; pads and
   * prompts included (mask them).
   */
  NDArray nextTokenLogprobs(NDArray logits) {
    NDArray targets =
        tokens.get(":, 1:").reshape(rows, length - 1, 1).toDevice(logits.getDevice(), false);
    return predicting(logits)
        .logSoftmax(-1)
        .gather(targets, 2)
        .reshape(rows, length - 1)
        .toDevice(manager.getDevice(), false);
  }
}
