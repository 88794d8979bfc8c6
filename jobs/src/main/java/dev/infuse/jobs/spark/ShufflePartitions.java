package dev.infuse.jobs.spark;

import org.apache.spark.sql.RuntimeConfig;
import org.apache.spark.sql.SparkSession;

/**
 * Raises {@code spark.sql.shuffle.partitions} for the length of one job so that no shuffle
 * partition holds much more than {@link #TARGET_BYTES} of its input, and restores it on close.
 *
 * <p>Local sessions shuffle into four partitions, which keeps small jobs fast; a gigabyte through
 * four of them puts 300 MB or more in each, and a task caching one held 354 MB of it in memory
 * before it gave up and wrote it to disk (issue 19). Adaptive execution only coalesces partitions,
 * never splits them, and starting every shuffle at 64 partitions instead cost a one-question ingest
 * about 5 s, so the count follows the input's size and small inputs keep the session's setting.
 */
public final class ShufflePartitions implements AutoCloseable {
  /** Spark's own advisory partition size for adaptive execution. */
  public static final long TARGET_BYTES = 64L << 20;

  private static final String KEY = "spark.sql.shuffle.partitions";

  private final RuntimeConfig conf;
  private final String previous;
  private final int partitions;

  private ShufflePartitions(RuntimeConfig conf, String previous, int partitions) {
    this.conf = conf;
    this.previous = previous;
    this.partitions = partitions;
  }

  /**
   * Sets the session's shuffle partitions to at least {@code inputBytes / TARGET_BYTES}; never
   * lowers them.
   */
  public static ShufflePartitions forInput(SparkSession spark, long inputBytes) {
    RuntimeConfig conf = spark.conf();
    String previous = conf.contains(KEY) ? conf.get(KEY) : null;
    int current = Integer.parseInt(conf.get(KEY, "200"));
    long needed = (Math.max(0, inputBytes) + TARGET_BYTES - 1) / TARGET_BYTES;
    int partitions = (int) Math.min(Integer.MAX_VALUE, Math.max(current, needed));
    if (partitions != current) {
      conf.set(KEY, String.valueOf(partitions));
    }
    return new ShufflePartitions(conf, previous, partitions);
  }

  /** The shuffle partitions in force while this is open. */
  public int partitions() {
    return partitions;
  }

  @Override
  public void close() {
    if (previous == null) {
      conf.unset(KEY);
    } else {
      conf.set(KEY, previous);
    }
  }
}
