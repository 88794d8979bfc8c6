package dev.infuse.udfs.embed;

/**
 * Sentence-transformers pooling in plain Java: the mean of the token vectors under the attention
 * mask, then L2 normalisation. Done on the JVM, not as tensor ops, so that no engine needs more
 * than its forward pass (ONNX Runtime has few NDArray ops of its own, and DJL would load libtorch
 * for them).
 */
public final class Pooling {
  private Pooling() {}

  /**
   * @param hidden token vectors, row-major {@code [rows, length, dim]}
   * @param mask {@code [rows, length]}, 1 for a real token
   * @return {@code rows} unit vectors
   */
  public static float[][] meanPoolNormalized(
      float[] hidden, long[] mask, int rows, int length, int dim) {
    float[][] result = new float[rows][];
    for (int r = 0; r < rows; r++) {
      float[] sum = new float[dim];
      int count = 0;
      for (int t = 0; t < length; t++) {
        if (mask[r * length + t] == 0) {
          continue;
        }
        count++;
        int offset = (r * length + t) * dim;
        for (int d = 0; d < dim; d++) {
          sum[d] += hidden[offset + d];
        }
      }
      float scale = 1f / Math.max(count, 1);
      for (int d = 0; d < dim; d++) {
        sum[d] *= scale;
      }
      result[r] = normalized(sum);
    }
    return result;
  }

  /** Rows of an already pooled {@code [rows, dim]} output, each scaled to unit length. */
  public static float[][] rowsNormalized(float[] pooled, int rows, int dim) {
    float[][] result = new float[rows][];
    for (int r = 0; r < rows; r++) {
      float[] row = new float[dim];
      System.arraycopy(pooled, r * dim, row, 0, dim);
      result[r] = normalized(row);
    }
    return result;
  }

  /** Scales {@code vector} in place to unit length (a zero vector stays zero) and returns it. */
  public static float[] normalized(float[] vector) {
    double squares = 0;
    for (float v : vector) {
      squares += (double) v * v;
    }
    // sentence-transformers' Normalize clamps the norm at 1e-12 the same way.
    float scale = (float) (1.0 / Math.max(Math.sqrt(squares), 1e-12));
    for (int d = 0; d < vector.length; d++) {
      vector[d] *= scale;
    }
    return vector;
  }
}
