package dev.infuse.udfs.embed;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.IntStream;

/**
 * Groups texts into batches of similar token length, so that a batch pads little: a batch costs as
 * much as its longest row times its size. Each batch lists the input positions it holds, for
 * putting results back in input order.
 */
public final class LengthSortedBatches {
  private LengthSortedBatches() {}

  /** Input positions, longest first, cut into batches of at most {@code batchSize}. */
  public static List<int[]> of(List<TokenIds> texts, int batchSize) {
    if (batchSize < 1) {
      throw new IllegalArgumentException("batch size: got " + batchSize + ", expected >= 1");
    }
    int[] order =
        IntStream.range(0, texts.size())
            .boxed()
            .sorted(Comparator.comparingInt((Integer i) -> texts.get(i).length()).reversed())
            .mapToInt(Integer::intValue)
            .toArray();
    List<int[]> batches = new ArrayList<>();
    for (int start = 0; start < order.length; start += batchSize) {
      batches.add(
          java.util.Arrays.copyOfRange(order, start, Math.min(order.length, start + batchSize)));
    }
    return batches;
  }
}
