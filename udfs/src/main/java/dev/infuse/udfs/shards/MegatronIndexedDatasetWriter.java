package dev.infuse.udfs.shards;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.Closeable;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.UUID;

/**
 * Writes a token dataset as Megatron-LM's memory-mapped indexed dataset ({@code <prefix>.bin} and
 * {@code <prefix>.idx}), the format of {@code megatron/core/datasets/indexed_dataset.py} that
 * {@code IndexedDataset(path_prefix)} and {@code GPTDataset} read (and NeMo reads the same files).
 *
 * <p><b>{@code .bin}</b>: every sequence's token ids, concatenated, in the index's dtype,
 * little-endian, no header and no separators.
 *
 * <p><b>{@code .idx}</b>, little-endian throughout:
 *
 * <ol>
 *   <li>magic: the 9 bytes {@code MMIDIDX\x00\x00}
 *   <li>version: uint64, 1
 *   <li>dtype code: uint8, Megatron's {@code DType} enum: uint8=1, int8=2, int16=3, int32=4,
 *       int64=5, float64=6, float32=7, uint16=8. This writer uses uint16 (8) when the vocabulary
 *       has fewer than 65,500 ids and int32 (4) otherwise, as Megatron's {@code
 *       DType.optimal_dtype} chooses
 *   <li>sequence count S: uint64
 *   <li>document count D: uint64; this is the length of the document index array below, so it is
 *       the number of documents plus one
 *   <li>sequence lengths: int32[S], tokens per sequence
 *   <li>sequence pointers: int64[S], the byte offset of each sequence in {@code .bin} (0, then
 *       running sums of length × dtype size)
 *   <li>document indices: int64[D], a leading 0 and then, for each document, the sequence index
 *       just past its last sequence; document k holds sequences [indices[k], indices[k+1]), and the
 *       last entry is S
 * </ol>
 *
 * (Multimodal datasets append an int8 mode per sequence; text datasets have none, and none is
 * written.)
 *
 * <p>Usage: one {@link #addDocument(int[])} per training document is what Megatron's {@code
 * preprocess_data.py} writes without sentence splitting; {@link #addSequence(int[])} and {@link
 * #endDocument()} write documents of several sequences (sentences). Megatron's {@code GPTDataset}
 * packs documents into training samples itself and separates them with the EOD token when the
 * tokens end with one, so callers append their EOD id to each document.
 *
 * <p>Streaming: tokens go straight to a temporary {@code .bin}; sequence lengths and document
 * indices go to temporary side files, so memory stays constant however large the shard. {@link
 * #commit()} builds the {@code .idx} (pointers computed from the lengths), syncs both files and
 * renames them onto their names, {@code .bin} first so that an {@code .idx} never points into a
 * missing {@code .bin}; it returns both files' sizes and SHA-256. Closing without committing
 * deletes the temporary files.
 */
public final class MegatronIndexedDatasetWriter implements Closeable {
  /** Megatron's {@code optimal_dtype} threshold: vocabularies below it fit in uint16. */
  public static final int UINT16_VOCAB_LIMIT = 65500;

  private static final byte[] MAGIC = "MMIDIDX\0\0".getBytes(StandardCharsets.US_ASCII);
  private static final long VERSION = 1;

  /** The token dtypes this writer uses, with Megatron's codes. */
  public enum TokenType {
    UINT16(8, 2),
    INT32(4, 4);

    private final int code;
    private final int bytes;

    TokenType(int code, int bytes) {
      this.code = code;
      this.bytes = bytes;
    }

    /** Megatron's {@code DType} code written into the index. */
    public int code() {
      return code;
    }

    /** Bytes per token in {@code .bin}. */
    public int bytes() {
      return bytes;
    }

    /** uint16 when {@code vocabSize < 65500}, else int32. */
    public static TokenType forVocabSize(int vocabSize) {
      if (vocabSize < 1) {
        throw new IllegalArgumentException(
            "megatron shard vocab_size: got " + vocabSize + ", expected >= 1");
      }
      return vocabSize < UINT16_VOCAB_LIMIT ? UINT16 : INT32;
    }
  }

  /**
   * What {@link #commit()} published.
   *
   * @param documents documents written (the {@code .idx} document count is this plus one)
   */
  public record Written(
      ShardFile bin,
      ShardFile idx,
      TokenType tokenType,
      long sequences,
      long documents,
      long tokens) {}

  private final Path prefix;
  private final int vocabSize;
  private final TokenType tokenType;
  private final DigestingFileOutput bin;
  private final Path lengthsFile;
  private final Path documentsFile;
  private final OutputStream lengths;
  private final OutputStream documentIndices;
  private long sequences;
  private long documents;
  private long tokens;
  private long sequencesAtLastDocument;
  private Written written;
  private boolean closed;

  /**
   * Starts a dataset that {@link #commit()} publishes as {@code <prefix>.bin} and {@code
   * <prefix>.idx}.
   *
   * @param vocabSize token ids must lie in {@code [0, vocabSize)}; it also picks the dtype
   */
  public MegatronIndexedDatasetWriter(Path prefix, int vocabSize) {
    this.tokenType = TokenType.forVocabSize(vocabSize);
    this.vocabSize = vocabSize;
    this.prefix = prefix.toAbsolutePath().normalize();
    String name = this.prefix.getFileName().toString();
    this.lengthsFile = this.prefix.resolveSibling("." + name + ".lengths.tmp-" + UUID.randomUUID());
    this.documentsFile =
        this.prefix.resolveSibling("." + name + ".documents.tmp-" + UUID.randomUUID());
    DigestingFileOutput binOut = null;
    try {
      binOut = new DigestingFileOutput(this.prefix.resolveSibling(name + ".bin"));
      this.lengths = new BufferedOutputStream(Files.newOutputStream(lengthsFile), 1 << 16);
      this.documentIndices =
          new BufferedOutputStream(Files.newOutputStream(documentsFile), 1 << 16);
      // Megatron's document index starts with 0: document 0 begins at sequence 0.
      documentIndices.write(littleEndianLong(0));
    } catch (IOException e) {
      if (binOut != null) {
        binOut.discard();
      }
      deleteTemps();
      throw new UncheckedIOException("cannot start megatron shard " + prefix, e);
    }
    this.bin = binOut;
  }

  public TokenType tokenType() {
    return tokenType;
  }

  /** Appends one sequence to the current document. */
  public void addSequence(int[] tokenIds) {
    requireOpen("addSequence");
    if (tokenIds == null || tokenIds.length == 0) {
      throw new IllegalArgumentException(
          "megatron shard sequence " + sequences + ": empty, expected at least one token");
    }
    ByteBuffer buffer =
        ByteBuffer.allocate(tokenIds.length * tokenType.bytes()).order(ByteOrder.LITTLE_ENDIAN);
    for (int i = 0; i < tokenIds.length; i++) {
      int id = tokenIds[i];
      if (id < 0 || id >= vocabSize) {
        throw new IllegalArgumentException(
            "megatron shard sequence "
                + sequences
                + ", token "
                + i
                + ": got id "
                + id
                + ", expected 0.."
                + (vocabSize - 1)
                + " (vocab_size "
                + vocabSize
                + ")");
      }
      if (tokenType == TokenType.UINT16) {
        buffer.putShort((short) id);
      } else {
        buffer.putInt(id);
      }
    }
    try {
      bin.write(buffer.array());
      lengths.write(
          ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(tokenIds.length).array());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write megatron shard " + prefix, e);
    }
    sequences++;
    tokens += tokenIds.length;
  }

  /** Ends the current document after the sequences added since the last one. */
  public void endDocument() {
    requireOpen("endDocument");
    if (sequences == sequencesAtLastDocument) {
      throw new IllegalStateException(
          "megatron shard document "
              + documents
              + ": no sequence added since the last endDocument(), expected at least one");
    }
    try {
      documentIndices.write(littleEndianLong(sequences));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write megatron shard " + prefix, e);
    }
    sequencesAtLastDocument = sequences;
    documents++;
  }

  /** Appends a document of one sequence. */
  public void addDocument(int[] tokenIds) {
    addSequence(tokenIds);
    endDocument();
  }

  /** Writes the index, publishes both files and returns their checksums. */
  public Written commit() {
    if (written != null) {
      return written;
    }
    requireOpen("commit");
    if (sequences != sequencesAtLastDocument) {
      throw new IllegalStateException(
          "megatron shard commit: "
              + (sequences - sequencesAtLastDocument)
              + " sequences after the last endDocument(), expected every sequence inside a document");
    }
    DigestingFileOutput idx = null;
    try {
      lengths.close();
      documentIndices.close();
      ShardFile binFile = bin.finish();
      idx = new DigestingFileOutput(prefix.resolveSibling(prefix.getFileName() + ".idx"));
      writeIndex(idx);
      ShardFile idxFile = idx.finish();
      bin.publish();
      idx.publish();
      written = new Written(binFile, idxFile, tokenType, sequences, documents, tokens);
      return written;
    } catch (IOException e) {
      bin.discard();
      if (idx != null) {
        idx.discard();
      }
      throw new UncheckedIOException("cannot publish megatron shard " + prefix, e);
    } finally {
      closed = true;
      deleteTemps();
    }
  }

  /** The published files' sizes and SHA-256; only after {@link #commit()}. */
  public Written checksums() {
    if (written == null) {
      throw new IllegalStateException(
          "megatron shard " + prefix + ": no checksums before commit()");
    }
    return written;
  }

  /** Abandons an uncommitted dataset (temporary files are deleted); after commit, does nothing. */
  @Override
  public void close() {
    if (!closed) {
      closed = true;
      try {
        lengths.close();
        documentIndices.close();
      } catch (IOException ignored) {
        // The files are deleted next.
      }
      bin.discard();
      deleteTemps();
    }
  }

  private void writeIndex(OutputStream idx) throws IOException {
    idx.write(MAGIC);
    idx.write(littleEndianLong(VERSION));
    idx.write(tokenType.code());
    idx.write(littleEndianLong(sequences));
    idx.write(littleEndianLong(documents + 1));
    Files.copy(lengthsFile, idx);
    // Pointers are the running byte offsets of the sequences, read back from the lengths file.
    try (DataInputStream in =
        new DataInputStream(new BufferedInputStream(Files.newInputStream(lengthsFile), 1 << 16))) {
      long pointer = 0;
      for (long i = 0; i < sequences; i++) {
        idx.write(littleEndianLong(pointer));
        pointer += (long) Integer.reverseBytes(in.readInt()) * tokenType.bytes();
      }
    }
    try (InputStream in = Files.newInputStream(documentsFile)) {
      in.transferTo(idx);
    }
  }

  private void requireOpen(String operation) {
    if (closed) {
      throw new IllegalStateException(
          "megatron shard " + prefix + ": " + operation + " after commit or close");
    }
  }

  private void deleteTemps() {
    try {
      Files.deleteIfExists(lengthsFile);
      Files.deleteIfExists(documentsFile);
    } catch (IOException ignored) {
      // Hidden leftovers are harmless; the published files do not depend on them.
    }
  }

  private static byte[] littleEndianLong(long value) {
    return ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(value).array();
  }
}
