package dev.infuse.udfs.lm.train;

import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Objects;

/**
 * Packed sequences in two local files, read back memory-mapped: a {@link SequenceSource} whose rows
 * stay on disk (and in the OS page cache), not on the heap, so that training data may exceed
 * memory. Nothing here grows with the data: {@link #get} reads one row when the trainer asks for
 * it.
 *
 * <p>{@value #DATA}: per row, big-endian int32s: the token count n, the document count d, a mask
 * flag (0: no loss mask, 1: one follows), the n token ids, the d document lengths and, with the
 * flag, the n loss-mask values. {@value #OFFSETS}: per row, the big-endian int64 byte offset of its
 * record in {@value #DATA}; the row count is its size / 8.
 *
 * <p>Written once, in row order, by a {@link Writer}, then only read. {@link #close} deletes both
 * files; the mappings go when they are collected (on POSIX a mapping does not hold a deleted file's
 * name, only its pages).
 */
public final class MappedSequences implements SequenceSource, Closeable {
  static final String DATA = "sequences.ints";
  static final String OFFSETS = "sequences.offsets";

  private final Path directory;
  private final MappedFile data;
  private final MappedFile offsets;
  private final int size;
  private volatile boolean closed;

  private MappedSequences(Path directory, int segmentBytes) {
    this.directory = directory;
    this.data = new MappedFile(directory.resolve(DATA), segmentBytes);
    this.offsets = new MappedFile(directory.resolve(OFFSETS), segmentBytes);
    this.size = Math.toIntExact(offsets.length() / 8);
  }

  /** A writer of {@value #DATA} and {@value #OFFSETS} in {@code directory}, which holds neither. */
  public static Writer writer(Path directory) {
    return new Writer(directory, MappedFile.SEGMENT_BYTES);
  }

  /** As {@link #writer(Path)}, mapped in segments of {@code segmentBytes} (tests: small ones). */
  static Writer writer(Path directory, int segmentBytes) {
    return new Writer(directory, segmentBytes);
  }

  @Override
  public int size() {
    return size;
  }

  @Override
  public PackedSequence get(int index) {
    if (closed) {
      throw new IllegalStateException("sequences in " + directory + ": already closed");
    }
    Objects.checkIndex(index, size);
    long at = offsets.getLong(8L * index);
    int tokens = data.getInt(at);
    int documents = data.getInt(at + 4);
    boolean masked = data.getInt(at + 8) == 1;
    long idsAt = at + 12;
    long lengthsAt = idsAt + 4L * tokens;
    return new PackedSequence(
        data.getInts(idsAt, tokens),
        data.getInts(lengthsAt, documents),
        masked ? data.getInts(lengthsAt + 4L * documents, tokens) : null);
  }

  /** Deletes the files. */
  @Override
  public void close() {
    closed = true;
    deleteFiles(directory);
  }

  private static void deleteFiles(Path directory) {
    try {
      Files.deleteIfExists(directory.resolve(DATA));
      Files.deleteIfExists(directory.resolve(OFFSETS));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot delete the staged sequences in " + directory, e);
    }
  }

  /** Appends rows to the two files as they come, through two small buffers. */
  public static final class Writer implements Closeable {
    private final Path directory;
    private final int segmentBytes;
    private final FileChannel data;
    private final FileChannel offsets;
    private final ByteBuffer dataBuffer = ByteBuffer.allocate(1 << 16);
    private final ByteBuffer offsetBuffer = ByteBuffer.allocate(1 << 13);
    private long position;
    private int rows;
    private boolean done;

    private Writer(Path directory, int segmentBytes) {
      this.directory = directory;
      this.segmentBytes = segmentBytes;
      FileChannel opened = null;
      try {
        opened = open(directory.resolve(DATA));
        this.offsets = open(directory.resolve(OFFSETS));
        this.data = opened;
      } catch (IOException e) {
        closeQuietly(opened);
        deleteFiles(directory);
        throw new UncheckedIOException("cannot stage sequences in " + directory, e);
      }
    }

    private static FileChannel open(Path file) throws IOException {
      return FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
    }

    public void append(PackedSequence sequence) {
      if (rows == Integer.MAX_VALUE) {
        throw new IllegalStateException(
            "sequences in "
                + directory
                + ": more than "
                + Integer.MAX_VALUE
                + ", expected at most that many rows per training");
      }
      int[] ids = sequence.inputIds();
      int[] lengths = sequence.documentLengths();
      int[] mask = sequence.lossMask();
      try {
        if (offsetBuffer.remaining() < 8) {
          drain(offsetBuffer, offsets);
        }
        offsetBuffer.putLong(position);
        putInts(ids.length, lengths.length, mask == null ? 0 : 1);
        putInts(ids);
        putInts(lengths);
        if (mask != null) {
          putInts(mask);
        }
      } catch (IOException e) {
        throw new UncheckedIOException("cannot stage sequence " + rows + " in " + directory, e);
      }
      position += 4L * (3 + ids.length + lengths.length + (mask == null ? 0 : mask.length));
      rows++;
    }

    private void putInts(int... values) throws IOException {
      for (int value : values) {
        if (dataBuffer.remaining() < 4) {
          drain(dataBuffer, data);
        }
        dataBuffer.putInt(value);
      }
    }

    private static void drain(ByteBuffer buffer, FileChannel channel) throws IOException {
      buffer.flip();
      while (buffer.hasRemaining()) {
        channel.write(buffer);
      }
      buffer.clear();
    }

    /** Rows appended so far. */
    public int rows() {
      return rows;
    }

    /** Writes out both files and maps them; the result owns (and on close deletes) them. */
    public MappedSequences finish() {
      done = true;
      try {
        drain(dataBuffer, data);
        drain(offsetBuffer, offsets);
        data.close();
        offsets.close();
        return new MappedSequences(directory, segmentBytes);
      } catch (IOException | RuntimeException e) {
        closeQuietly(data);
        closeQuietly(offsets);
        deleteFiles(directory);
        if (e instanceof IOException io) {
          throw new UncheckedIOException("cannot stage sequences in " + directory, io);
        }
        throw (RuntimeException) e;
      }
    }

    /** Abandons an unfinished writer: closes and deletes both files. */
    @Override
    public void close() {
      if (!done) {
        done = true;
        closeQuietly(data);
        closeQuietly(offsets);
        deleteFiles(directory);
      }
    }

    private static void closeQuietly(FileChannel channel) {
      if (channel != null) {
        try {
          channel.close();
        } catch (IOException ignored) {
          // Its file is deleted next; nothing was handed out.
        }
      }
    }
  }
}
