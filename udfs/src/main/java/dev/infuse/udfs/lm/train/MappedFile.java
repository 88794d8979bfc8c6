package dev.infuse.udfs.lm.train;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.IntBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A read-only file of big-endian int32 and int64 values, memory-mapped in segments: one mapping
 * cannot exceed 2 GiB, the files it serves can. The pages live in the OS page cache, off the heap;
 * only one buffer object per segment is held. A value never straddles two segments (segments are a
 * multiple of 8 bytes and values sit at multiples of their size); an int array may, and is copied
 * in pieces.
 */
final class MappedFile {
  /** The largest mapping, a multiple of 8 and below the 2 GiB limit of one mapping. */
  static final int SEGMENT_BYTES = 1 << 30;

  private final Path path;
  private final long length;
  private final int segmentBytes;
  private final MappedByteBuffer[] segments;
  private final IntBuffer[] ints;

  MappedFile(Path path, int segmentBytes) {
    if (segmentBytes <= 0 || segmentBytes % 8 != 0) {
      throw new IllegalArgumentException(
          "segment bytes: got " + segmentBytes + ", expected a positive multiple of 8");
    }
    this.path = path;
    this.segmentBytes = segmentBytes;
    try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ)) {
      this.length = channel.size();
      int count = Math.toIntExact((length + segmentBytes - 1) / segmentBytes);
      segments = new MappedByteBuffer[count];
      ints = new IntBuffer[count];
      for (int i = 0; i < count; i++) {
        long start = (long) i * segmentBytes;
        // A mapping stays valid after its channel closes.
        segments[i] =
            channel.map(
                FileChannel.MapMode.READ_ONLY, start, Math.min(segmentBytes, length - start));
        ints[i] = segments[i].asIntBuffer();
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot map " + path, e);
    }
  }

  long length() {
    return length;
  }

  int getInt(long position) {
    check(position, 4, 4);
    return segments[segment(position)].getInt(offset(position));
  }

  long getLong(long position) {
    check(position, 8, 8);
    return segments[segment(position)].getLong(offset(position));
  }

  /** The {@code count} ints from byte {@code position} on, across segment ends. */
  int[] getInts(long position, int count) {
    check(position, (long) count * 4, 4);
    int[] values = new int[count];
    int done = 0;
    while (done < count) {
      long at = position + (long) done * 4;
      int segment = segment(at);
      int first = offset(at) / 4;
      int n = Math.min(count - done, ints[segment].limit() - first);
      ints[segment].get(first, values, done, n);
      done += n;
    }
    return values;
  }

  private void check(long position, long bytes, int alignment) {
    if (position < 0 || position % alignment != 0 || position + bytes > length) {
      throw new IndexOutOfBoundsException(
          "bytes "
              + position
              + ".."
              + (position + bytes)
              + " of "
              + path
              + ": expected "
              + alignment
              + "-aligned positions inside its "
              + length
              + " bytes");
    }
  }

  private int segment(long position) {
    return (int) (position / segmentBytes);
  }

  private int offset(long position) {
    return (int) (position % segmentBytes);
  }
}
