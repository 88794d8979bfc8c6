package dev.infuse.udfs.embed;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import java.util.List;

/**
 * A padded batch, row-major {@code [rows, length]}, ready to become int64 tensors. Padding has id
 * 0, type 0 and mask 0, so it is neither attended to nor pooled.
 */
public record TokenBatch(
    int rows, int length, long[] inputIds, long[] attentionMask, long[] tokenTypeIds) {

  /** Pads {@code texts} to the longest of them. */
  public static TokenBatch pad(List<TokenIds> texts) {
    int rows = texts.size();
    int length = 0;
    for (TokenIds text : texts) {
      length = Math.max(length, text.length());
    }
    long[] ids = new long[rows * length];
    long[] mask = new long[rows * length];
    long[] types = new long[rows * length];
    for (int r = 0; r < rows; r++) {
      TokenIds text = texts.get(r);
      System.arraycopy(text.ids(), 0, ids, r * length, text.length());
      System.arraycopy(text.typeIds(), 0, types, r * length, text.length());
      java.util.Arrays.fill(mask, r * length, r * length + text.length(), 1L);
    }
    return new TokenBatch(rows, length, ids, mask, types);
  }

  /**
   * The batch as a model's named int64 inputs, in {@code inputNames} order: input_ids,
   * attention_mask, and token_type_ids for any other name.
   */
  public NDList toInputs(NDManager manager, List<String> inputNames) {
    Shape shape = new Shape(rows, length);
    NDList inputs = new NDList();
    for (String name : inputNames) {
      long[] data =
          switch (name) {
            case "input_ids" -> inputIds;
            case "attention_mask" -> attentionMask;
            default -> tokenTypeIds;
          };
      NDArray array = manager.create(data, shape);
      array.setName(name);
      inputs.add(array);
    }
    return inputs;
  }
}
