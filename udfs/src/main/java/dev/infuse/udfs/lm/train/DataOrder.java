package dev.infuse.udfs.lm.train;

import java.util.SplittableRandom;

/**
 * Which sequences each step trains on. Each epoch is a permutation derived only from (seed, epoch),
 * and step s takes the next {@code batchSize} slots after those of steps before it, so a resumed
 * run sees exactly the batches an uninterrupted one would.
 *
 * <p>It holds one epoch's permutation, 4 bytes per row: the only per-row structure a training keeps
 * on the heap (rows themselves come from a {@link SequenceSource}, which may be on disk).
 */
final class DataOrder {
  private final int size;
  private final long seed;
  private int cachedEpoch = -1;
  private int[] cachedPermutation;

  DataOrder(int size, long seed) {
    this.size = size;
    this.seed = seed;
  }

  /** The sequence indices of step {@code step} (from 1). */
  int[] batch(int step, int batchSize) {
    int[] indices = new int[batchSize];
    for (int i = 0; i < batchSize; i++) {
      long slot = (long) (step - 1) * batchSize + i;
      indices[i] = permutation(Math.toIntExact(slot / size))[(int) (slot % size)];
    }
    return indices;
  }

  private int[] permutation(int epoch) {
    if (epoch != cachedEpoch) {
      SplittableRandom random = new SplittableRandom(seed * 0x9E3779B97F4A7C15L + epoch);
      int[] order = new int[size];
      for (int i = 0; i < size; i++) {
        order[i] = i;
      }
      for (int i = size - 1; i > 0; i--) {
        int j = random.nextInt(i + 1);
        int swap = order[i];
        order[i] = order[j];
        order[j] = swap;
      }
      cachedEpoch = epoch;
      cachedPermutation = order;
    }
    return cachedPermutation;
  }
}
