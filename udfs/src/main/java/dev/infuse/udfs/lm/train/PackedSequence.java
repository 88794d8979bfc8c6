package dev.infuse.udfs.lm.train;

import java.util.Arrays;

/**
 * One training row: the token ids of one or more documents laid end to end.
 *
 * @param inputIds the tokens; at most the model's context length
 * @param documentLengths how many of {@code inputIds} each document takes, in order; sums to {@code
 *     inputIds.length}, with one entry when the row holds a single document
 * @param lossMask null when every token is a prediction target; otherwise 1 where a token is a
 *     target (for example only the answer tokens in supervised fine-tuning) and 0 elsewhere
 */
public record PackedSequence(int[] inputIds, int[] documentLengths, int[] lossMask) {
  public PackedSequence {
    if (inputIds == null || inputIds.length == 0) {
      throw new IllegalArgumentException("input_ids: empty, expected at least one token");
    }
    if (documentLengths == null || documentLengths.length == 0) {
      throw new IllegalArgumentException(
          "document_lengths: empty, expected lengths summing to " + inputIds.length);
    }
    long sum = 0;
    for (int length : documentLengths) {
      if (length <= 0) {
        throw new IllegalArgumentException(
            "document_lengths: got " + length + ", expected positive lengths");
      }
      sum += length;
    }
    if (sum != inputIds.length) {
      throw new IllegalArgumentException(
          "document_lengths: sum to "
              + sum
              + ", expected the "
              + inputIds.length
              + " tokens of input_ids");
    }
    if (lossMask != null) {
      if (lossMask.length != inputIds.length) {
        throw new IllegalArgumentException(
            "loss_mask: has "
                + lossMask.length
                + " entries, expected "
                + inputIds.length
                + " (one per token) or none");
      }
      for (int flag : lossMask) {
        if (flag != 0 && flag != 1) {
          throw new IllegalArgumentException("loss_mask: got " + flag + ", expected 0 or 1");
        }
      }
    }
  }

  /** A row holding one document whose every token is a target. */
  public static PackedSequence of(int... inputIds) {
    return new PackedSequence(inputIds, new int[] {inputIds.length}, null);
  }

  /** Whether token {@code index} may be a prediction target. */
  boolean isTarget(int index) {
    return lossMask == null || lossMask[index] == 1;
  }

  // Records compare arrays by identity; rows are values.
  @Override
  public boolean equals(Object other) {
    return other instanceof PackedSequence that
        && Arrays.equals(inputIds, that.inputIds)
        && Arrays.equals(documentLengths, that.documentLengths)
        && Arrays.equals(lossMask, that.lossMask);
  }

  @Override
  public int hashCode() {
    return 31 * (31 * Arrays.hashCode(inputIds) + Arrays.hashCode(documentLengths))
        + Arrays.hashCode(lossMask);
  }

  @Override
  public String toString() {
    return "PackedSequence["
        + inputIds.length
        + " tokens, documents "
        + Arrays.toString(documentLengths)
        + "]";
  }
}
