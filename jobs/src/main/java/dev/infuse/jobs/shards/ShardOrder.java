package dev.infuse.jobs.shards;

import java.io.Serializable;
import java.util.Comparator;
import org.apache.spark.Partitioner;

/**
 * Where one repetition of a training text goes: its shard and its place in that shard's order. The
 * order key is {@link dev.infuse.udfs.mix.StatelessSampler#orderKey}, a hash; ties (which a 64-bit
 * hash makes vanishingly rare) break on the row's identity, so the order is total and the shards'
 * bytes never depend on partitioning or task timing.
 */
record ShardOrder(int shard, long orderKey, String source, String rowId, int repetition)
    implements Comparable<ShardOrder>, Serializable {
  private static final Comparator<ShardOrder> ORDER =
      Comparator.comparingLong(ShardOrder::orderKey)
          .thenComparing(ShardOrder::source)
          .thenComparing(ShardOrder::rowId)
          .thenComparingInt(ShardOrder::repetition);

  @Override
  public int compareTo(ShardOrder other) {
    return ORDER.compare(this, other);
  }

  /** Spark partition i is shard i: one task writes one shard. */
  static final class ByShard extends Partitioner {
    private static final long serialVersionUID = 1L;
    private final int shards;

    ByShard(int shards) {
      this.shards = shards;
    }

    @Override
    public int numPartitions() {
      return shards;
    }

    @Override
    public int getPartition(Object key) {
      return ((ShardOrder) key).shard();
    }

    @Override
    public boolean equals(Object other) {
      return other instanceof ByShard that && that.shards == shards;
    }

    @Override
    public int hashCode() {
      return shards;
    }
  }
}
