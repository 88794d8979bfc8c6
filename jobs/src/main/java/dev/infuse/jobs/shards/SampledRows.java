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
 * The mixture's sample: each tokenized text repeated as often as its source's planned epochs say, keyed
 * by its shard and place in the order ({@link ShardOrder}). Pure per row (see {@link StatelessSampler}),
 * so any partitioning of the input gives the same sample.
 *
 * <p>Input rows are {@link TrainingTextRows#SCHEMA} rows without a failure reason; each output value is
 * the input row itself.
 */
final class SampledRows implements PairFlatMapFunction<Row, ShardOrder, Row> {
  private static final long serialVersionUID = 1L;

  private final long seed;
  private final Map<String, Double> epochs;
  private final int shards;

  /** @param epochs planned passes per source; a source not in the map is not sampled */
  SampledRows(long seed, Map<String, Double> epochs, int shards) {
    this.seed = seed;
    this.epochs = Map.copyOf(epochs);
    this.shards = shards;
  }

  @Override
  public Iterator<Tuple2<ShardOrder, Row>> call(Row row) {
    StatelessSampler sampler = new StatelessSampler(seed);
    String source = row.getString(0);
    String rowId = row.getString(1);
    List<Tuple2<ShardOrder, Row>> out = new ArrayList<>();
    for (int repetition : sampler.repetitions(source, rowId, epochs.getOrDefault(source, 0.0))) {
      long orderKey = sampler.orderKey(source, rowId, repetition);
      int shard = (int) Long.remainderUnsigned(orderKey, shards);
      out.add(new Tuple2<>(new ShardOrder(shard, orderKey, source, rowId, repetition), row));
    }
    return out.iterator();
  }
}
