package dev.infuse.udfs.shards;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
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

    MegatronDatasetReader read = MegatronDatasetReader.read(prefix);
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

    MegatronDatasetReader read = MegatronDatasetReader.read(prefix);
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
    assertThatThrownBy(() -> MegatronDatasetReader.read(prefix))
        .hasMessageContaining("bin has 10 bytes, index implies 12");
    assertThat(sha256(bin)).isNotEqualTo(written.bin().sha256());

    Path idx = Path.of(prefix + ".idx");
    Files.write(idx, Arrays.copyOf(Files.readAllBytes(idx), (int) Files.size(idx) - 8));
    assertThatThrownBy(() -> MegatronDatasetReader.read(prefix)).hasMessageContaining("idx has");
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
