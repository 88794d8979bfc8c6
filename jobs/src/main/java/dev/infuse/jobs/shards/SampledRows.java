package dev.infuse.jobs.shards;

import dev.infuse.udfs.mix.StatelessSampler;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.apache.spark.api.java.function.PairFlatMapFunction;
import org.apache.spark.sql.Row;
import scala.Tuple2;

/**
 * The mixture's sample: each tokenized text repeated as often as its source's planned epochs say,
 * keyed by its shard and place in the order ({@link ShardOrder}). Pure per row (see {@link
 * StatelessSampler}), so any partitioning of the input gives the same sample.
 *
 * <p>Input rows are {@link TrainingTextRows#SCHEMA} rows without a failure reason; each output
 * value is the row's {@link ShardText}, shared by its repetitions.
 */
final class SampledRows implements PairFlatMapFunction<Row, ShardOrder, ShardText> {
  private static final long serialVersionUID = 1L;

  private final long seed;
  private final Map<String, Double> epochs;
  private final int shards;
  private final boolean keepText;

  /**
   * @param epochs planned passes per source; a source not in the map is not sampled
   * @param keepText whether the values carry the text (only JSONL shards need it)
   */
  SampledRows(long seed, Map<String, Double> epochs, int shards, boolean keepText) {
    this.seed = seed;
    this.epochs = Map.copyOf(epochs);
    this.shards = shards;
    this.keepText = keepText;
  }

  @Override
  public Iterator<Tuple2<ShardOrder, ShardText>> call(Row row) {
    StatelessSampler sampler = new StatelessSampler(seed);
    String source = row.getString(0);
    String rowId = row.getString(1);
    List<Integer> repetitions =
        sampler.repetitions(source, rowId, epochs.getOrDefault(source, 0.0));
    if (repetitions.isEmpty()) {
      return java.util.Collections.emptyIterator();
    }
    ShardText text =
        new ShardText(
            ints(row.getList(2)),
            row.isNullAt(3) ? null : ints(row.getList(3)),
            keepText ? row.getString(5) : null);
    List<Tuple2<ShardOrder, ShardText>> out = new ArrayList<>(repetitions.size());
    for (int repetition : repetitions) {
      long orderKey = sampler.orderKey(source, rowId, repetition);
      int shard = (int) Long.remainderUnsigned(orderKey, shards);
      out.add(new Tuple2<>(new ShardOrder(shard, orderKey, source, rowId, repetition), text));
    }
    return out.iterator();
  }

  private static int[] ints(List<Integer> values) {
    int[] out = new int[values.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = values.get(i);
    }
    return out;
  }
}
