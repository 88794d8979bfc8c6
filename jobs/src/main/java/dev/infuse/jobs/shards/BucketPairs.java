package dev.infuse.jobs.shards;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import org.apache.spark.api.java.function.MapPartitionsFunction;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * Candidate pairs {@code (a, b)}, {@code a < b}, from band buckets, read as a partition of {@code
 * (band, band_key, row_id)} rows sorted by all three, so that each bucket is a run of rows. A
 * bucket of up to {@code maxBucketSize} ids is paired all against all. A larger one (boilerplate
 * that many texts share) is paired as a chain of neighbours in row_id order plus each member with
 * the smallest: 2n pairs instead of n²/2. If its members are truly alike the chain still connects
 * them; a member that is alike only to a non-neighbour in such a bucket can be missed there, though
 * other bands may catch it.
 *
 * <p>Pairs come out lazily, and at most {@code maxBucketSize + 1} ids of a bucket are held: a
 * partition of any size, with buckets of any size, streams through in bounded memory (grouping the
 * ids into arrays per bucket held every bucket of a task at once, and ran a million-text build out
 * of a 2 GB heap).
 */
final class BucketPairs implements MapPartitionsFunction<Row, Row> {
  private static final long serialVersionUID = 1L;

  static final StructType SCHEMA =
      new StructType().add("a", DataTypes.StringType, false).add("b", DataTypes.StringType, false);

  private final int maxBucketSize;

  BucketPairs(int maxBucketSize) {
    this.maxBucketSize = maxBucketSize;
  }

  @Override
  public Iterator<Row> call(Iterator<Row> keyed) {
    return new Pairs(keyed, maxBucketSize);
  }

  /** The pairs of one partition's buckets, one bucket at a time. */
  private static final class Pairs implements Iterator<Row> {
    private final Iterator<Row> keyed;
    private final int maxBucketSize;
    private final ArrayDeque<Row> queue = new ArrayDeque<>();

    /** The first row of the next bucket, read while finding where the last one ended. */
    private Row pending;

    /** While an oversized bucket streams as a chain: its first row; null otherwise. */
    private Row chained;

    private String smallest;
    private String previous;

    Pairs(Iterator<Row> keyed, int maxBucketSize) {
      this.keyed = keyed;
      this.maxBucketSize = maxBucketSize;
    }

    @Override
    public boolean hasNext() {
      while (queue.isEmpty()) {
        if (!fill()) {
          return false;
        }
      }
      return true;
    }

    @Override
    public Row next() {
      if (!hasNext()) {
        throw new NoSuchElementException();
      }
      return queue.poll();
    }

    /** Queues the next pairs, if any; false once the partition is done. */
    private boolean fill() {
      if (chained != null) {
        if (!keyed.hasNext()) {
          chained = null;
          return false;
        }
        Row row = keyed.next();
        if (!sameBucket(row, chained)) {
          chained = null;
          pending = row;
          return true;
        }
        String id = row.getString(2);
        if (!id.equals(previous)) {
          queue.add(RowFactory.create(smallest, id));
          queue.add(RowFactory.create(previous, id));
          previous = id;
        }
        return true;
      }
      Row first = pending != null ? pending : keyed.hasNext() ? keyed.next() : null;
      pending = null;
      if (first == null) {
        return false;
      }
      List<String> ids = new ArrayList<>();
      ids.add(first.getString(2));
      while (keyed.hasNext()) {
        Row row = keyed.next();
        if (!sameBucket(row, first)) {
          pending = row;
          break;
        }
        String id = row.getString(2);
        if (id.equals(ids.get(ids.size() - 1))) {
          continue;
        }
        ids.add(id);
        if (ids.size() > maxBucketSize) {
          // Oversized: chain what is buffered, then the rest of the bucket one row at a time.
          smallest = ids.get(0);
          for (int k = 1; k < ids.size(); k++) {
            queue.add(RowFactory.create(smallest, ids.get(k)));
            if (k >= 2) {
              queue.add(RowFactory.create(ids.get(k - 1), ids.get(k)));
            }
          }
          previous = ids.get(ids.size() - 1);
          chained = first;
          return true;
        }
      }
      for (int i = 0; i < ids.size(); i++) {
        for (int j = i + 1; j < ids.size(); j++) {
          queue.add(RowFactory.create(ids.get(i), ids.get(j)));
        }
      }
      return true;
    }

    private static boolean sameBucket(Row row, Row first) {
      return row.getInt(0) == first.getInt(0) && row.getLong(1) == first.getLong(1);
    }
  }
}
