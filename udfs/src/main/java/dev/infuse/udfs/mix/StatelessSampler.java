package dev.infuse.udfs.mix;

import dev.infuse.udfs.common.Keys;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * Sampling that needs no shared state: whether a row is taken, how often, and where it goes in the
 * order are pure functions of (seed, source, row id, repetition). Spark can evaluate them on any
 * executor in any partitioning and get byte-identical shards; a different seed gives another sample
 * and order.
 *
 * <p>A source planned at {@code epochs} = e takes every row floor(e) times, and each row once more
 * with probability e - floor(e), decided by a hash of the row: over many rows the tokens match the
 * budget.
 */
public final class StatelessSampler {
  private final long seed;

  public StatelessSampler(long seed) {
    this.seed = seed;
  }

  /** The repetitions of {@code rowId} to include: 0 .. n-1, possibly none. */
  public List<Integer> repetitions(String source, String rowId, double epochs) {
    if (!(epochs >= 0)) {
      throw new IllegalArgumentException("epochs: got " + epochs + ", expected >= 0");
    }
    int whole = (int) Math.floor(epochs);
    double fraction = epochs - whole;
    List<Integer> taken = new ArrayList<>(whole + 1);
    for (int repetition = 0; repetition < whole; repetition++) {
      taken.add(repetition);
    }
    if (fraction > 0 && unit(source, rowId, "take") < fraction) {
      taken.add(whole);
    }
    return taken;
  }

  /** The sort key of one repetition of a row in the shuffled training order. */
  public long orderKey(String source, String rowId, int repetition) {
    return hash(source, rowId, "order", Integer.toString(repetition));
  }

  /** A uniform number in [0, 1) from the row's identity. */
  private double unit(String source, String rowId, String purpose) {
    return (hash(source, rowId, purpose) >>> 11) * 0x1.0p-53;
  }

  private long hash(String... parts) {
    String[] keyed = new String[parts.length + 1];
    keyed[0] = Long.toString(seed);
    System.arraycopy(parts, 0, keyed, 1, parts.length);
    return ByteBuffer.wrap(
            Keys.sha256(
                String.join("\u001f", keyed).getBytes(java.nio.charset.StandardCharsets.UTF_8)))
        .getLong();
  }
}
