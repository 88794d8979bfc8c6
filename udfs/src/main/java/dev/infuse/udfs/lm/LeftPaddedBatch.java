package dev.infuse.udfs.lm;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import java.util.List;

/**
 * Rows of different lengths as one {@link CausalLm#forward} input: padded on the left, so every
 * row's last token sits in the last column and its next-token logits are at index -1; each row's
 * positions start at 0 at its first real token; padding is masked out.
 *
 * @param tokens int64 [B, T]
 * @param positions int64 [B, T], 0 on padding
 * @param keyMask int64 [B, T], 0 on padding
 * @param padding leading pad columns of each row
 */
record LeftPaddedBatch(NDArray tokens, NDArray positions, NDArray keyMask, int[] padding) {

  static LeftPaddedBatch of(NDManager manager, List<long[]> rows, long padId) {
    int width = 0;
    for (long[] row : rows) {
      width = Math.max(width, row.length);
    }
    int count = rows.size();
    long[] tokens = new long[count * width];
    long[] positions = new long[count * width];
    long[] mask = new long[count * width];
    int[] padding = new int[count];
    for (int b = 0; b < count; b++) {
      long[] row = rows.get(b);
      padding[b] = width - row.length;
      for (int t = 0; t < width; t++) {
        int i = b * width + t;
        int real = t - padding[b];
        tokens[i] = real < 0 ? padId : row[real];
        positions[i] = Math.max(real, 0);
        mask[i] = real < 0 ? 0 : 1;
      }
    }
    Shape shape = new Shape(count, width);
    return new LeftPaddedBatch(
        manager.create(tokens, shape),
        manager.create(positions, shape),
        manager.create(mask, shape),
        padding);
  }
}
