package dev.infuse.udfs.shards;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MegatronIndexedDatasetWriterTest {
  @TempDir Path dir;

  /**
   * A reader written from the public description of Megatron-LM's MMIDIDX format, sharing nothing
   * with the writer: magic "MMIDIDX\0\0", uint64 version 1, uint8 dtype (4 = int32, 8 = uint16),
   * uint64 sequence count, uint64 document count, int32 lengths, int64 pointers, int64 document
   * indices.
   */
  record MegatronDataset(
      int dtypeCode,
      int[] lengths,
      long[] pointers,
      long[] documentIndices,
      List<int[]> sequences) {
    static MegatronDataset read(Path prefix) throws IOException {
      ByteBuffer idx =
          ByteBuffer.wrap(Files.readAllBytes(Path.of(prefix + ".idx")))
              .order(ByteOrder.LITTLE_ENDIAN);
      byte[] magic = new byte[9];
      require(idx.remaining() >= 9 + 8 + 1 + 8 + 8, "idx shorter than its header");
      idx.get(magic);
      require(
          Arrays.equals(magic, new byte[] {'M', 'M', 'I', 'D', 'I', 'D', 'X', 0, 0}), "bad magic");
      require(idx.getLong() == 1L, "version is not 1");
      int dtype = idx.get() & 0xff;
      int itemSize =
          switch (dtype) {
            case 8 -> 2;
            case 4 -> 4;
            default -> throw new IOException("unexpected dtype code " + dtype);
          };
      long sequenceCount = idx.getLong();
      long documentCount = idx.getLong();
      long expectedIdx = 34 + 4 * sequenceCount + 8 * sequenceCount + 8 * documentCount;
      require(
          idx.capacity() == expectedIdx,
          "idx has " + idx.capacity() + " bytes, header implies " + expectedIdx);
      int[] lengths = new int[(int) sequenceCount];
      for (int i = 0; i < lengths.length; i++) {
        lengths[i] = idx.getInt();
      }
      long[] pointers = new long[(int) sequenceCount];
      for (int i = 0; i < pointers.length; i++) {
        pointers[i] = idx.getLong();
      }
      long[] documents = new long[(int) documentCount];
      for (int i = 0; i < documents.length; i++) {
        documents[i] = idx.getLong();
      }
      ByteBuffer bin =
          ByteBuffer.wrap(Files.readAllBytes(Path.of(prefix + ".bin")))
              .order(ByteOrder.LITTLE_ENDIAN);
      long expectedBin = Arrays.stream(lengths).asLongStream().sum() * itemSize;
      require(
          bin.capacity() == expectedBin,
          "bin has " + bin.capacity() + " bytes, index implies " + expectedBin);
      List<int[]> sequences = new ArrayList<>();
      for (int i = 0; i < lengths.length; i++) {
        int[] tokens = new int[lengths[i]];
        bin.position((int) pointers[i]);
        for (int t = 0; t < tokens.length; t++) {
          tokens[t] = itemSize == 2 ? Short.toUnsignedInt(bin.getShort()) : bin.getInt();
        }
        sequences.add(tokens);
      }
      return new MegatronDataset(dtype, lengths, pointers, documents, sequences);
    }

    private static void require(boolean condition, String message) throws IOException {
      if (!condition) {
        throw new IOException("not a valid MMIDIDX dataset: " + message);
      }
    }
  }

  @Test
  void smallVocabularyWritesUint16ThatAnIndependentReaderReadsBack() throws IOException {
    Random random = new Random(7);
    List<int[]> documents = new ArrayList<>();
    for (int d = 0; d < 50; d++) {
      int[] ids = random.ints(1 + random.nextInt(40), 0, 50257).toArray();
      documents.add(ids);
    }
    documents.set(3, new int[] {50256, 0, 40000}); // above 32767: must come back unsigned
    Path prefix = dir.resolve("shard-00000");
    MegatronIndexedDatasetWriter.Written written;
    try (MegatronIndexedDatasetWriter writer = new MegatronIndexedDatasetWriter(prefix, 50257)) {
      documents.forEach(writer::addDocument);
      written = writer.commit();
    }

    MegatronDataset read = MegatronDataset.read(prefix);
    assertThat(read.dtypeCode()).isEqualTo(8);
    assertThat(read.sequences()).hasSize(50);
    for (int i = 0; i < documents.size(); i++) {
      assertThat(read.sequences().get(i)).containsExactly(documents.get(i));
    }
    assertThat(read.pointers()[0]).isZero();
    assertThat(read.pointers()[1]).isEqualTo(2L * documents.get(0).length);
    long[] oneSequencePerDocument = new long[51];
    Arrays.setAll(oneSequencePerDocument, i -> i);
    assertThat(read.documentIndices()).containsExactly(oneSequencePerDocument);

    long tokens = documents.stream().mapToLong(ids -> ids.length).sum();
    assertThat(written.tokens()).isEqualTo(tokens);
    assertThat(written.documents()).isEqualTo(50);
    assertThat(written.bin().bytes())
        .isEqualTo(2 * tokens)
        .isEqualTo(Files.size(Path.of(prefix + ".bin")));
    assertThat(written.bin().sha256()).isEqualTo(sha256(Path.of(prefix + ".bin")));
    assertThat(written.idx().sha256()).isEqualTo(sha256(Path.of(prefix + ".idx")));
    assertThat(dir).isDirectoryNotContaining(path -> path.getFileName().toString().startsWith("."));
  }

  @Test
  void largeVocabularyWritesInt32WithMultiSequenceDocuments() throws IOException {
    Path prefix = dir.resolve("big");
    try (MegatronIndexedDatasetWriter writer = new MegatronIndexedDatasetWriter(prefix, 128_256)) {
      assertThat(writer.tokenType()).isEqualTo(MegatronIndexedDatasetWriter.TokenType.INT32);
      writer.addSequence(new int[] {128_000, 1, 2});
      writer.addSequence(new int[] {70_000});
      writer.endDocument();
      writer.addDocument(new int[] {5, 6});
      writer.addSequence(new int[] {9});
      writer.addSequence(new int[] {10, 11});
      writer.addSequence(new int[] {128_255});
      writer.endDocument();
      writer.commit();
    }

    MegatronDataset read = MegatronDataset.read(prefix);
    assertThat(read.dtypeCode()).isEqualTo(4);
    assertThat(read.lengths()).containsExactly(3, 1, 2, 1, 2, 1);
    assertThat(read.pointers()).containsExactly(0, 12, 16, 24, 28, 36);
    assertThat(read.documentIndices()).containsExactly(0, 2, 3, 6);
    assertThat(read.sequences().get(0)).containsExactly(128_000, 1, 2);
    assertThat(read.sequences().get(5)).containsExactly(128_255);
  }

  @Test
  void truncatedFilesAreDetected() throws IOException {
    Path prefix = dir.resolve("cut");
    MegatronIndexedDatasetWriter.Written written;
    try (MegatronIndexedDatasetWriter writer = new MegatronIndexedDatasetWriter(prefix, 1000)) {
      writer.addDocument(new int[] {1, 2, 3, 4});
      writer.addDocument(new int[] {5, 6});
      written = writer.commit();
    }
    Path bin = Path.of(prefix + ".bin");
    Files.write(bin, Arrays.copyOf(Files.readAllBytes(bin), 10));
    assertThatThrownBy(() -> MegatronDataset.read(prefix))
        .hasMessageContaining("bin has 10 bytes, index implies 12");
    assertThat(sha256(bin)).isNotEqualTo(written.bin().sha256());

    Path idx = Path.of(prefix + ".idx");
    Files.write(idx, Arrays.copyOf(Files.readAllBytes(idx), (int) Files.size(idx) - 8));
    assertThatThrownBy(() -> MegatronDataset.read(prefix)).hasMessageContaining("idx has");
  }

  @Test
  void uncommittedWriterPublishesNothingAndBadInputIsRefused() throws IOException {
    Path prefix = dir.resolve("aborted");
    try (MegatronIndexedDatasetWriter writer = new MegatronIndexedDatasetWriter(prefix, 100)) {
      writer.addDocument(new int[] {1, 2});
      assertThatThrownBy(() -> writer.addDocument(new int[] {100}))
          .hasMessageContaining("got id 100, expected 0..99 (vocab_size 100)");
      assertThatThrownBy(() -> writer.addSequence(new int[0])).hasMessageContaining("empty");
      assertThatThrownBy(writer::endDocument).hasMessageContaining("no sequence added");
      writer.addSequence(new int[] {3});
      assertThatThrownBy(writer::commit)
          .hasMessageContaining("1 sequences after the last endDocument()");
    }
    try (var files = Files.list(dir)) {
      assertThat(files).isEmpty();
    }
    assertThatThrownBy(() -> new MegatronIndexedDatasetWriter(prefix, 0))
        .hasMessageContaining("vocab_size: got 0");
    assertThat(MegatronIndexedDatasetWriter.TokenType.forVocabSize(65_499))
        .isEqualTo(MegatronIndexedDatasetWriter.TokenType.UINT16);
    assertThat(MegatronIndexedDatasetWriter.TokenType.forVocabSize(65_500))
        .isEqualTo(MegatronIndexedDatasetWriter.TokenType.INT32);
  }

  static String sha256(Path file) throws IOException {
    try {
      return HexFormat.of()
          .formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file)));
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
