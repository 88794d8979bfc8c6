package dev.infuse.jobs.shards;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.infuse.jobs.SparkTestSession;
import dev.infuse.udfs.lm.train.PackedSequence;
import dev.infuse.udfs.shards.ShardFile;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.apache.parquet.format.ColumnChunk;
import org.apache.parquet.format.Encoding;
import org.apache.parquet.format.FileMetaData;
import org.apache.parquet.format.RowGroup;
import org.apache.parquet.format.Util;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.Test;

/**
 * The Parquet shard's bytes are a function of its rows: the footer's encoding lists, which
 * parquet-mr writes in a per-JVM hash order, come out sorted, and a footer in any other order is
 * put back into the same bytes.
 */
class ParquetShardWriterTest {
  @Test
  void theFooterListsEncodingsInOneOrderWhateverOrderParquetMrUsed() throws IOException {
    Path file = SparkTestSession.tempDir("parquet-shard").resolve("shard-00000-of-00001.parquet");
    List<PackedSequence> rows = sequences();
    ShardFile written;
    try (ParquetShardWriter writer = new ParquetShardWriter(file, 3)) {
      rows.forEach(sequence -> writer.write(sequence, 2));
      written = writer.commit();
    }
    byte[] bytes = Files.readAllBytes(file);
    assertThat(written.bytes()).isEqualTo(bytes.length);

    FileMetaData footer = footer(bytes);
    int multiEncodingColumns = 0;
    for (RowGroup group : footer.getRow_groups()) {
      for (ColumnChunk chunk : group.getColumns()) {
        List<Integer> codes =
            chunk.getMeta_data().getEncodings().stream().map(Encoding::getValue).toList();
        assertThat(codes).as(chunk.getMeta_data().getPath_in_schema().toString()).isSorted();
        multiEncodingColumns += codes.size() > 1 ? 1 : 0;
      }
    }
    assertThat(multiEncodingColumns).as("columns whose encoding order could vary").isPositive();

    // Another JVM's order: every list reversed. Canonicalizing gives the published bytes back.
    byte[] otherOrder = withFooter(bytes, reversedEncodings(footer(bytes)));
    assertThat(otherOrder).isNotEqualTo(bytes);
    assertThat(ParquetFooter.canonicalTail(otherOrder)).isEqualTo(bytes);
    assertThat(ParquetFooter.canonicalTail(bytes)).isEqualTo(bytes);

    // And the file is still the rows written.
    List<Row> read =
        SparkTestSession.get().read().parquet(file.toString()).orderBy("sequence").collectAsList();
    assertThat(read).hasSize(rows.size());
    for (int i = 0; i < rows.size(); i++) {
      assertThat(read.get(i).<Integer>getAs("shard")).isEqualTo(3);
      assertThat(read.get(i).<Integer>getList(read.get(i).fieldIndex("input_ids")))
          .containsExactly(box(rows.get(i).inputIds()));
      assertThat(read.get(i).<Integer>getList(read.get(i).fieldIndex("loss_mask")))
          .endsWith(0, 0)
          .startsWith(1);
    }
  }

  @Test
  void aTailWithoutAFooterIsAClearError() {
    assertThatThrownBy(() -> ParquetFooter.canonicalTail(new byte[] {1, 2, 3}))
        .hasMessageContaining("does not end in a footer and PAR1 (3 bytes)");
    byte[] badLength =
        "xxxx\u00ff\u0000\u0000\u0000PAR1".getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
    assertThatThrownBy(() -> ParquetFooter.canonicalTail(badLength))
        .hasMessageContaining("footer's length 255 does not fit the 12 bytes");
  }

  private static List<PackedSequence> sequences() {
    Random random = new Random(5);
    List<PackedSequence> rows = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      int[] ids = random.ints(16, 0, 30).toArray();
      int[] answerMask = new int[16];
      java.util.Arrays.fill(answerMask, 0, 14, 1);
      rows.add(new PackedSequence(ids, new int[] {10, 6}, answerMask));
    }
    return rows;
  }

  private static Integer[] box(int[] values) {
    return java.util.Arrays.stream(values).boxed().toArray(Integer[]::new);
  }

  private static int footerLength(byte[] file) {
    return ByteBuffer.wrap(file, file.length - 8, 4).order(ByteOrder.LITTLE_ENDIAN).getInt();
  }

  private static FileMetaData footer(byte[] file) throws IOException {
    int length = footerLength(file);
    return Util.readFileMetaData(new ByteArrayInputStream(file, file.length - 8 - length, length));
  }

  private static FileMetaData reversedEncodings(FileMetaData footer) {
    for (RowGroup group : footer.getRow_groups()) {
      for (ColumnChunk chunk : group.getColumns()) {
        List<Encoding> encodings = new ArrayList<>(chunk.getMeta_data().getEncodings());
        Collections.reverse(encodings);
        chunk.getMeta_data().setEncodings(encodings);
      }
    }
    return footer;
  }

  /** The file with its footer replaced (same length: the lists only change order). */
  private static byte[] withFooter(byte[] file, FileMetaData footer) throws IOException {
    ByteArrayOutputStream serialized = new ByteArrayOutputStream();
    Util.writeFileMetaData(footer, serialized);
    int length = footerLength(file);
    assertThat(serialized.size()).isEqualTo(length);
    byte[] copy = file.clone();
    System.arraycopy(serialized.toByteArray(), 0, copy, file.length - 8 - length, length);
    return copy;
  }
}
