package dev.infuse.jobs.train;

import java.util.Arrays;
import java.util.List;
import org.apache.spark.api.java.function.Function;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import scala.Tuple2;

/**
 * Checks train.shards rows on the executors, so that neither good nor bad rows need the driver's
 * heap. Input rows are {@code (input_ids, document_lengths, mask)}, each possibly null, numbered in
 * shard order; a row that does not fit this model (wrong length, ids outside the vocabulary,
 * lengths that do not add up, a mask of another length or with values other than 0 and 1) comes out
 * with its reason and its ids as text for quarantine, a good one with its arrays.
 */
final class ShardRows implements Function<Tuple2<Row, Long>, Row> {
  private static final long serialVersionUID = 1L;

  /** What {@link #call} returns: {@code reason} null for a good row, its arrays null otherwise. */
  static final StructType SCHEMA =
      new StructType()
          .add("row", DataTypes.LongType, false)
          .add("input_ids", DataTypes.createArrayType(DataTypes.IntegerType, false), true)
          .add("document_lengths", DataTypes.createArrayType(DataTypes.IntegerType, false), true)
          .add("mask", DataTypes.createArrayType(DataTypes.IntegerType, false), true)
          .add("payload", DataTypes.StringType, true)
          .add("reason", DataTypes.StringType, true);

  private final int sequenceLength;
  private final int vocabSize;
  private final String maskColumn;

  /**
   * @param maskColumn the shard column the mask was read from (loss_mask or answer_mask), for the
   *     reasons
   */
  ShardRows(int sequenceLength, int vocabSize, String maskColumn) {
    this.sequenceLength = sequenceLength;
    this.vocabSize = vocabSize;
    this.maskColumn = maskColumn;
  }

  @Override
  public Row call(Tuple2<Row, Long> numbered) {
    Row row = numbered._1();
    long index = numbered._2();
    int[] ids = ints(row, 0);
    int[] lengths = row.isNullAt(1) || ids == null ? new int[] {length(ids)} : ints(row, 1);
    int[] mask = ints(row, 2);
    String reason = problem(row, ids, lengths, mask);
    if (reason != null) {
      String payload =
          ids != null ? Arrays.toString(ids) : row.isNullAt(0) ? null : row.getList(0).toString();
      return RowFactory.create(index, null, null, null, payload, reason);
    }
    // int[] goes into an array<int> column as is.
    return RowFactory.create(index, ids, lengths, mask, null, null);
  }

  private String problem(Row row, int[] ids, int[] lengths, int[] mask) {
    if (ids == null) {
      return "input_ids "
          + (row.isNullAt(0) ? "is null" : "holds a null")
          + ", expected "
          + sequenceLength
          + " token ids";
    }
    if (ids.length != sequenceLength) {
      return "input_ids has "
          + ids.length
          + " tokens, expected train.sequence_length "
          + sequenceLength;
    }
    for (int id : ids) {
      if (id < 0 || id >= vocabSize) {
        return "input_ids holds "
            + id
            + ", expected ids in 0.."
            + (vocabSize - 1)
            + " of the tokenizer";
      }
    }
    if (lengths == null) {
      return "document_lengths holds a null, expected positive lengths summing to " + ids.length;
    }
    long sum = 0;
    boolean positive = true;
    for (int length : lengths) {
      sum += length;
      positive &= length > 0;
    }
    if (sum != ids.length || !positive) {
      return "document_lengths sum to "
          + sum
          + ", expected positive lengths summing to "
          + ids.length;
    }
    if (mask == null && !row.isNullAt(2)) {
      return maskColumn + " holds a null, expected 0 or 1 per token";
    }
    if (mask != null && mask.length != ids.length) {
      return maskColumn + " has " + mask.length + " entries, expected " + ids.length;
    }
    if (mask != null) {
      for (int flag : mask) {
        if (flag != 0 && flag != 1) {
          return maskColumn + " holds " + flag + ", expected 0 or 1";
        }
      }
    }
    return null;
  }

  private static int length(int[] ids) {
    return ids == null ? 0 : ids.length;
  }

  /** Column {@code i} as ints; null when it is null or holds a null. */
  private static int[] ints(Row row, int i) {
    if (row.isNullAt(i)) {
      return null;
    }
    List<Integer> values = row.getList(i);
    int[] ints = new int[values.size()];
    int k = 0;
    for (Integer value : values) {
      if (value == null) {
        return null;
      }
      ints[k++] = value;
    }
    return ints;
  }
}
