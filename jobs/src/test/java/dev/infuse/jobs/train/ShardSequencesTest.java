package dev.infuse.jobs.train;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.infuse.jobs.SparkTestSession;
import dev.infuse.jobs.shards.ParquetShardWriter;
import dev.infuse.udfs.lm.train.MappedSequences;
import dev.infuse.udfs.lm.train.PackedSequence;
import dev.infuse.udfs.lm.train.SequenceSource;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;

/**
 * train.shards streamed to disk gives the sequences that collecting the shards on the driver gave,
 * in the same order, and numbers the quarantined rows as before.
 */
class ShardSequencesTest {
  private static final SparkSession SPARK = SparkTestSession.get();
  private static final int LENGTH = 16;
  private static final int VOCAB = 30522;

  @Test
  void aShardBuildStreamsToTheSequencesCollectingItGaveInShardOrder() throws IOException {
    Path parquet = SparkTestSession.tempDir("shard-stream").resolve("parquet");
    Files.createDirectories(parquet);
    List<List<PackedSequence>> byShard = new ArrayList<>();
    Random random = new Random(17);
    for (int shard = 0; shard < 3; shard++) {
      List<PackedSequence> rows = new ArrayList<>();
      for (int i = 0; i < 7; i++) {
        int[] ids = random.ints(LENGTH, 0, VOCAB).toArray();
        int[] answerMask = new int[LENGTH];
        Arrays.fill(answerMask, 5 + i, LENGTH - 2, 1);
        rows.add(new PackedSequence(ids, new int[] {5 + i, LENGTH - 5 - i}, answerMask));
      }
      byShard.add(rows);
    }
    // The last shard first, so that neither file order nor write order is shard order.
    for (int shard = 2; shard >= 0; shard--) {
      try (ParquetShardWriter writer =
          new ParquetShardWriter(
              parquet.resolve("shard-0000" + shard + "-of-00003.parquet"), shard)) {
        byShard.get(shard).forEach(sequence -> writer.write(sequence, 2));
        writer.commit();
      }
    }
    Dataset<Row> files = SPARK.read().parquet(parquet.toString());
    Dataset<Row> ordered = files.orderBy("shard", "sequence");
    // Sorted in pieces of about 512 bytes of Parquet: many partitions, streamed one by one.
    Dataset<Row> shards = ShardSequences.inShardOrder(SPARK, files, 512);
    assertThat(shards.javaRDD().getNumPartitions()).isGreaterThan(3);

    for (String mask : List.of("loss_mask", "answer_mask")) {
      List<PackedSequence> collected = collectAsBefore(ordered, mask);
      try (ShardSequences staged = ShardSequences.stage(SPARK, shards, mask, LENGTH, VOCAB)) {
        // On disk by type: nothing in it holds the rows as a list.
        assertThat(staged.sequences()).isInstanceOf(MappedSequences.class);
        assertThat(all(staged.sequences())).as(mask).isEqualTo(collected);
        assertThat(staged.read()).isEqualTo(21);
        assertThat(staged.failed()).isZero();
        assertThat(staged.failures().count()).isZero();
        assertThat(staged.targetTokens())
            .isEqualTo(collected.stream().mapToLong(s -> Arrays.stream(s.lossMask()).sum()).sum());
      }
    }
    List<PackedSequence> inShardOrder = byShard.stream().flatMap(List::stream).toList();
    try (ShardSequences staged =
        ShardSequences.stage(SPARK, shards, "answer_mask", LENGTH, VOCAB)) {
      // The answer mask is what was written; loss_mask only drops the padding.
      assertThat(all(staged.sequences())).isEqualTo(inShardOrder);
    }
    ShardSequences closed = ShardSequences.stage(SPARK, shards, "loss_mask", LENGTH, VOCAB);
    closed.close();
    assertThatThrownBy(() -> closed.sequences().get(0)).hasMessageContaining("already closed");
  }

  @Test
  void badRowsAreNumberedInShardOrderAndTheRestStreamInOrder() {
    StructType schema =
        new StructType()
            .add("shard", DataTypes.IntegerType)
            .add("sequence", DataTypes.LongType)
            .add("input_ids", DataTypes.createArrayType(DataTypes.IntegerType))
            .add("loss_mask", DataTypes.createArrayType(DataTypes.IntegerType));
    int[] a = ids(1);
    int[] b = ids(2);
    int[] c = ids(3);
    int[] outOfVocab = ids(4);
    outOfVocab[3] = VOCAB;
    int[] ones = new int[LENGTH];
    Arrays.fill(ones, 1);
    int[] twos = ones.clone();
    twos[0] = 2;
    // Listed out of order; shard order is c, short, a, outOfVocab, b, badMask.
    Dataset<Row> shards =
        SPARK
            .createDataFrame(
                List.of(
                    RowFactory.create(1, 1L, b, null),
                    RowFactory.create(0, 1L, Arrays.copyOf(a, 4), null),
                    RowFactory.create(1, 0L, outOfVocab, null),
                    RowFactory.create(0, 2L, a, ones),
                    RowFactory.create(1, 2L, b, twos),
                    RowFactory.create(0, 0L, c, null)),
                schema)
            .repartition(3);
    Dataset<Row> ordered = shards.orderBy("shard", "sequence");
    shards = ShardSequences.inShardOrder(SPARK, shards, 64);

    try (ShardSequences staged = ShardSequences.stage(SPARK, shards, "loss_mask", LENGTH, VOCAB)) {
      assertThat(all(staged.sequences()))
          .isEqualTo(collectAsBefore(ordered, "loss_mask").stream().filter(s -> s != null).toList())
          .containsExactly(
              PackedSequence.of(c),
              new PackedSequence(a, new int[] {LENGTH}, ones),
              PackedSequence.of(b));
      assertThat(staged.read()).isEqualTo(6);
      assertThat(staged.failed()).isEqualTo(3);
      assertThat(staged.targetTokens()).isEqualTo(3L * LENGTH);
      List<String> letters =
          staged.failures().orderBy("location").collectAsList().stream()
              .map(r -> r.getString(1) + " " + r.getString(4) + " " + r.getString(2))
              .toList();
      assertThat(letters)
          .containsExactly(
              "row=1 input_ids has 4 tokens, expected train.sequence_length 16 "
                  + Arrays.toString(Arrays.copyOf(a, 4)),
              "row=3 input_ids holds 30522, expected ids in 0..30521 of the tokenizer "
                  + Arrays.toString(outOfVocab),
              "row=5 loss_mask holds 2, expected 0 or 1 " + Arrays.toString(b));
    }
  }

  /**
   * What train did before streaming: every row collected on the driver, null for a row it would
   * quarantine.
   */
  private static List<PackedSequence> collectAsBefore(Dataset<Row> shards, String maskColumn) {
    List<String> columns = List.of(shards.columns());
    List<PackedSequence> sequences = new ArrayList<>();
    for (Row row : shards.collectAsList()) {
      int[] ids = ints(row.getList(row.fieldIndex("input_ids")));
      int[] lengths =
          columns.contains("document_lengths") && !row.isNullAt(row.fieldIndex("document_lengths"))
              ? ints(row.getList(row.fieldIndex("document_lengths")))
              : new int[] {ids.length};
      int[] mask =
          columns.contains(maskColumn) && !row.isNullAt(row.fieldIndex(maskColumn))
              ? ints(row.getList(row.fieldIndex(maskColumn)))
              : null;
      boolean fits =
          ids.length == LENGTH
              && Arrays.stream(ids).allMatch(id -> id >= 0 && id < VOCAB)
              && (mask == null || Arrays.stream(mask).allMatch(f -> f == 0 || f == 1));
      sequences.add(fits ? new PackedSequence(ids, lengths, mask) : null);
    }
    return sequences;
  }

  private static List<PackedSequence> all(SequenceSource source) {
    List<PackedSequence> rows = new ArrayList<>();
    for (int i = 0; i < source.size(); i++) {
      rows.add(source.get(i));
    }
    return rows;
  }

  private static int[] ids(int seed) {
    return new Random(seed).ints(LENGTH, 0, VOCAB).toArray();
  }

  private static int[] ints(List<Integer> values) {
    return values.stream().mapToInt(Integer::intValue).toArray();
  }
}
