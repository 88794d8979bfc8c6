package dev.infuse.jobs.train;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.concat;
import static org.apache.spark.sql.functions.lit;

import dev.infuse.jobs.io.Quarantine;
import dev.infuse.udfs.lm.train.MappedSequences;
import dev.infuse.udfs.lm.train.PackedSequence;
import dev.infuse.udfs.lm.train.SequenceSource;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.storage.StorageLevel;

/**
 * The rows of train.shards, checked on the executors ({@link ShardRows}) and staged on this machine
 * as {@link MappedSequences}: the good rows stream in shard order through {@link
 * Dataset#toLocalIterator()}, one partition at a time, into a temporary directory under {@code
 * java.io.tmpdir}, so training data may exceed the driver's memory. Row numbers, and so the
 * quarantine locations, follow the same shard order; the same shards give the same sequences in the
 * same order as collecting them did.
 *
 * <p>Closing deletes the staged files and drops the checked rows cached on the executors; the
 * quarantine ({@link #failures()}) must be written before.
 */
final class ShardSequences implements AutoCloseable {
  /**
   * Parquet bytes per partition when sorting: a few times that in rows on the driver while staging.
   */
  static final long PARTITION_BYTES = 32L << 20;

  private final Dataset<Row> checked;
  private final Path staging;
  private final MappedSequences sequences;
  private final long failed;
  private final long targetTokens;

  private ShardSequences(
      Dataset<Row> checked,
      Path staging,
      MappedSequences sequences,
      long failed,
      long targetTokens) {
    this.checked = checked;
    this.staging = staging;
    this.sequences = sequences;
    this.failed = failed;
    this.targetTokens = targetTokens;
  }

  /**
   * {@code shards} sorted by {@code (shard, sequence)}, as {@code orderBy} sorts them, in range
   * partitions of about {@link #PARTITION_BYTES} of Parquet each (at least {@code
   * spark.sql.shuffle.partitions}): staging holds one partition at a time on the driver, so their
   * size must not grow with the data.
   */
  static Dataset<Row> inShardOrder(SparkSession spark, Dataset<Row> shards) {
    return inShardOrder(spark, shards, PARTITION_BYTES);
  }

  static Dataset<Row> inShardOrder(SparkSession spark, Dataset<Row> shards, long partitionBytes) {
    long bytes = shards.queryExecution().optimizedPlan().stats().sizeInBytes().longValue();
    int partitions =
        (int)
            Math.min(
                Integer.MAX_VALUE,
                Math.max(
                    spark.sessionState().conf().numShufflePartitions(),
                    (bytes + partitionBytes - 1) / partitionBytes));
    return shards
        .repartitionByRange(partitions, col("shard"), col("sequence"))
        .sortWithinPartitions("shard", "sequence");
  }

  /**
   * Checks and stages {@code shards}, already in training order, with an {@code input_ids} column.
   *
   * @param maskColumn the loss-mask column to read (loss_mask or answer_mask); a missing one means
   *     every token is a target
   */
  static ShardSequences stage(
      SparkSession spark,
      Dataset<Row> shards,
      String maskColumn,
      int sequenceLength,
      int vocabSize) {
    List<String> columns = List.of(shards.columns());
    Dataset<Row> selected =
        shards.select(
            col("input_ids"), orNull(columns, "document_lengths"), orNull(columns, maskColumn));
    // zipWithIndex numbers rows in partition order, which is shard order: one row number per row,
    // as the quarantine has always named them.
    Dataset<Row> checked =
        spark
            .createDataFrame(
                selected
                    .javaRDD()
                    .zipWithIndex()
                    .map(new ShardRows(sequenceLength, vocabSize, maskColumn)),
                ShardRows.SCHEMA)
            .persist(StorageLevel.MEMORY_AND_DISK());
    Path staging = null;
    MappedSequences.Writer writer = null;
    try {
      long failed = checked.filter(col("reason").isNotNull()).count();
      staging = Files.createTempDirectory("infuse-train-staging-");
      writer = MappedSequences.writer(staging);
      long targets = 0;
      Iterator<Row> good =
          checked
              .filter(col("reason").isNull())
              .select("input_ids", "document_lengths", "mask")
              .toLocalIterator();
      while (good.hasNext()) {
        Row row = good.next();
        int[] ids = ints(row.getList(0));
        int[] mask = row.isNullAt(2) ? null : ints(row.getList(2));
        writer.append(new PackedSequence(ids, ints(row.getList(1)), mask));
        targets += mask == null ? ids.length : sum(mask);
      }
      return new ShardSequences(checked, staging, writer.finish(), failed, targets);
    } catch (IOException e) {
      UncheckedIOException failure =
          new UncheckedIOException(
              "cannot create a staging directory for train.shards under java.io.tmpdir", e);
      cleanUp(failure, writer, staging, checked);
      throw failure;
    } catch (RuntimeException | Error e) {
      cleanUp(e, writer, staging, checked);
      throw e;
    }
  }

  /** The good rows, in shard order, on disk. */
  SequenceSource sequences() {
    return sequences;
  }

  /** Every row read. */
  long read() {
    return sequences.size() + failed;
  }

  long failed() {
    return failed;
  }

  /** Tokens the loss is taken on. */
  long targetTokens() {
    return targetTokens;
  }

  /** The bad rows as dead letters: location {@code row=<n>}, the ids as text, the reason. */
  Dataset<Row> failures() {
    return Quarantine.deadLetters(
        checked.filter(col("reason").isNotNull()),
        lit("shards"),
        concat(lit("row="), col("row")),
        col("payload"),
        col("reason"));
  }

  @Override
  public void close() {
    try {
      sequences.close();
      Files.deleteIfExists(staging);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot delete the staging directory " + staging, e);
    } finally {
      checked.unpersist();
    }
  }

  /** Undoes a staging that failed; what fails here rides along with {@code failure}. */
  private static void cleanUp(
      Throwable failure, MappedSequences.Writer writer, Path staging, Dataset<Row> checked) {
    try {
      if (writer != null) {
        writer.close();
      }
      if (staging != null) {
        Files.deleteIfExists(staging);
      }
      checked.unpersist();
    } catch (IOException | RuntimeException e) {
      failure.addSuppressed(e);
    }
  }

  private static Column orNull(List<String> columns, String name) {
    return columns.contains(name)
        ? col(name)
        : lit(null).cast(DataTypes.createArrayType(DataTypes.IntegerType)).as(name);
  }

  private static int[] ints(List<Integer> values) {
    return values.stream().mapToInt(Integer::intValue).toArray();
  }

  private static long sum(int[] values) {
    long sum = 0;
    for (int value : values) {
      sum += value;
    }
    return sum;
  }
}
