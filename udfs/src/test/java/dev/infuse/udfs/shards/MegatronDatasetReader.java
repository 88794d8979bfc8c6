package dev.infuse.udfs.shards;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A reader written from the public description of Megatron-LM's MMIDIDX format, sharing nothing
 * with the writer: magic "MMIDIDX\0\0", uint64 version 1, uint8 dtype (4 = int32, 8 = uint16),
 * uint64 sequence count, uint64 document count, int32 lengths, int64 pointers, int64 document
 * indices.
 */
public record MegatronDatasetReader(
    int dtypeCode, int[] lengths, long[] pointers, long[] documentIndices, List<int[]> sequences) {
  public static MegatronDatasetReader read(Path prefix) throws IOException {
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
    return new MegatronDatasetReader(dtype, lengths, pointers, documents, sequences);
  }

  /** Each document's tokens: its sequences, from one document index to the next, joined. */
  public List<int[]> documents() {
    List<int[]> documents = new ArrayList<>();
    for (int d = 0; d + 1 < documentIndices.length; d++) {
      int[] tokens = new int[0];
      for (long s = documentIndices[d]; s < documentIndices[d + 1]; s++) {
        int[] sequence = sequences.get((int) s);
        int at = tokens.length;
        tokens = Arrays.copyOf(tokens, at + sequence.length);
        System.arraycopy(sequence, 0, tokens, at, sequence.length);
      }
      documents.add(tokens);
    }
    return documents;
  }

  private static void require(boolean condition, String message) throws IOException {
    if (!condition) {
      throw new IOException("not a valid MMIDIDX dataset: " + message);
    }
  }
}
