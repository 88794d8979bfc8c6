package dev.infuse.jobs.shards;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * Candidate pairs {@code (a, b)}, {@code a < b}, from one band bucket's sorted row ids. A bucket of
 * up to {@code maxBucketSize} ids is paired all against all. A larger one (boilerplate that many
 * texts share) is paired as a chain of neighbours in row_id order plus each member with the
 * smallest: 2n pairs instead of n²/2. If its members are truly alike the chain still connects them;
 * a member that is alike only to a non-neighbour in such a bucket can be missed there, though other
 * bands may catch it.
 */
final class BucketPairs implements FlatMapFunction<Row, Row> {
  private static final long serialVersionUID = 1L;

  static final StructType SCHEMA =
      new StructType().add("a", DataTypes.StringType, false).add("b", DataTypes.StringType, false);

  private final int maxBucketSize;

  BucketPairs(int maxBucketSize) {
    this.maxBucketSize = maxBucketSize;
  }

  /** The row has one column: the bucket's row ids, sorted ascending and distinct. */
  @Override
  public Iterator<Row> call(Row bucket) {
    List<String> ids = bucket.getList(0);
    int n = ids.size();
    List<Row> pairs = new ArrayList<>();
    if (n <= maxBucketSize) {
      for (int i = 0; i < n; i++) {
        for (int j = i + 1; j < n; j++) {
          pairs.add(RowFactory.create(ids.get(i), ids.get(j)));
        }
      }
    } else {
      for (int j = 1; j < n; j++) {
        pairs.add(RowFactory.create(ids.get(0), ids.get(j)));
        if (j >= 2) {
          pairs.add(RowFactory.create(ids.get(j - 1), ids.get(j)));
        }
      }
    }
    return pairs.iterator();
  }
}
