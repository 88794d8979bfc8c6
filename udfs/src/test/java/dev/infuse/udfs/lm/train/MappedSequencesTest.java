package dev.infuse.udfs.lm.train;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.DataInputStream;
import java.io.IOException;
import java.lang.reflect.Field;
import java.nio.Buffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Staged sequences read back exactly as written, by index, whatever segment the mapping cuts them
 * at; the offsets file points at each record; closing deletes the files.
 */
class MappedSequencesTest {
  @TempDir Path temp;

  @Test
  void everyRowReadsBackAsWrittenAcrossSegmentEnds() {
    List<PackedSequence> rows = rows(200, 3);
    // 40-byte segments cut nearly every record, and most arrays, in two or more pieces.
    try (MappedSequences staged = stage(rows, 40)) {
      assertThat(staged.size()).isEqualTo(rows.size());
      // Random access, in the order a shuffled epoch would ask.
      for (int i = rows.size() - 1; i >= 0; i -= 7) {
        assertThat(staged.get(i)).isEqualTo(rows.get(i));
      }
      List<PackedSequence> read = new ArrayList<>();
      for (int i = 0; i < staged.size(); i++) {
        read.add(staged.get(i));
      }
      assertThat(read).isEqualTo(rows);
      assertThat(read.get(0).lossMask()).isNull();
      assertThat(read.get(1).lossMask()).isNotNull();
    }
  }

  @Test
  void theOffsetsPointAtEachRecordAndARecordMaySpanASegmentEnd() throws IOException {
    // Record 0: 3 header ints, 5 ids, 1 length = 36 bytes, past the first 32-byte segment.
    // Record 1: 3 + 4 ids + 2 lengths + 4 mask = 52 bytes.
    PackedSequence first = PackedSequence.of(11, 12, 13, 14, 15);
    PackedSequence second =
        new PackedSequence(new int[] {21, 22, 23, 24}, new int[] {1, 3}, new int[] {0, 1, 1, 1});
    try (MappedSequences staged = stage(List.of(first, second), 32)) {
      try (DataInputStream offsets =
          new DataInputStream(Files.newInputStream(temp.resolve(MappedSequences.OFFSETS)))) {
        assertThat(offsets.readLong()).isZero();
        assertThat(offsets.readLong()).isEqualTo(36);
        assertThat(offsets.read()).as("no third offset").isEqualTo(-1);
      }
      assertThat(Files.size(temp.resolve(MappedSequences.DATA))).isEqualTo(36 + 52);
      assertThat(staged.get(0)).isEqualTo(first);
      assertThat(staged.get(1)).isEqualTo(second);
      assertThat(staged.get(1).documentLengths()).containsExactly(1, 3);
      assertThatThrownBy(() -> staged.get(2)).isInstanceOf(IndexOutOfBoundsException.class);
    }
  }

  @Test
  void oneSegmentAndManyGiveTheSameRows() {
    List<PackedSequence> rows = rows(50, 9);
    try (MappedSequences whole = stage(rows, MappedFile.SEGMENT_BYTES)) {
      for (int i = 0; i < rows.size(); i++) {
        assertThat(whole.get(i)).isEqualTo(rows.get(i));
      }
    }
  }

  @Test
  void closingDeletesTheFilesAndAnAbandonedWriterLeavesNone() throws IOException {
    MappedSequences staged = stage(rows(3, 1), 64);
    staged.close();
    assertThat(temp.resolve(MappedSequences.DATA)).doesNotExist();
    assertThat(temp.resolve(MappedSequences.OFFSETS)).doesNotExist();
    assertThatThrownBy(() -> staged.get(0)).hasMessageContaining("already closed");

    try (MappedSequences.Writer writer = MappedSequences.writer(temp)) {
      writer.append(PackedSequence.of(1, 2));
    }
    try (var files = Files.list(temp)) {
      assertThat(files).isEmpty();
    }
  }

  @Test
  void noRowsIsAnEmptySource() {
    try (MappedSequences staged = MappedSequences.writer(temp).finish()) {
      assertThat(staged.size()).isZero();
      assertThat(staged.isEmpty()).isTrue();
    }
  }

  @Test
  void holdsNoRowOnTheHeap() {
    // By type: neither class has a field that could hold rows, tokens or one offset per row; only
    // the files' mapped segments (one buffer per GiB).
    for (Class<?> type : List.of(MappedSequences.class, MappedFile.class)) {
      for (Field field : type.getDeclaredFields()) {
        Class<?> fieldType = field.getType();
        assertThat(
                Collection.class.isAssignableFrom(fieldType)
                    || Map.class.isAssignableFrom(fieldType))
            .as(type.getSimpleName() + "." + field.getName())
            .isFalse();
        assertThat(fieldType)
            .as(type.getSimpleName() + "." + field.getName())
            .isNotEqualTo(PackedSequence.class);
        if (fieldType.isArray()) {
          assertThat(Buffer.class.isAssignableFrom(fieldType.getComponentType()))
              .as(type.getSimpleName() + "." + field.getName() + " holds buffers only")
              .isTrue();
        }
      }
    }
  }

  private MappedSequences stage(List<PackedSequence> rows, int segmentBytes) {
    MappedSequences.Writer writer = MappedSequences.writer(temp, segmentBytes);
    rows.forEach(writer::append);
    assertThat(writer.rows()).isEqualTo(rows.size());
    return writer.finish();
  }

  /** Rows of every shape: one or more documents, with and without a loss mask, varying lengths. */
  private static List<PackedSequence> rows(int count, long seed) {
    Random random = new Random(seed);
    List<PackedSequence> rows = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      int length = 1 + random.nextInt(40);
      int[] ids = random.ints(length, 0, 30522).toArray();
      int split = length > 1 ? 1 + random.nextInt(length - 1) : length;
      int[] lengths = split < length ? new int[] {split, length - split} : new int[] {length};
      int[] mask = null;
      if (i % 2 == 1) {
        mask = random.ints(length, 0, 2).toArray();
      }
      rows.add(new PackedSequence(ids, lengths, mask));
    }
    return rows;
  }
}
