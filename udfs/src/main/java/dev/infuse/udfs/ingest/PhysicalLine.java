package dev.infuse.udfs.ingest;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * One line of a file, decoded on its own so that invalid UTF-8 condemns only the records on that
 * line.
 *
 * @param number 1-based line number
 * @param start byte offset of the line in the file
 * @param end byte offset just past the line's content (before any {@code \r\n} or {@code \n})
 * @param text the decoded line, with U+FFFD replacements when invalid
 * @param invalidOffset 0-based offset of the first invalid byte within the line, or -1
 */
record PhysicalLine(int number, int start, int end, String text, int invalidOffset) {
  boolean valid() {
    return invalidOffset < 0;
  }

  /** The line's exact bytes, without the line terminator. */
  byte[] bytes(byte[] content) {
    return Arrays.copyOfRange(content, start, end);
  }

  /** Why the line is rejected; the byte position is 1-based, like line and column numbers. */
  String invalidReason(String where) {
    return "invalid UTF-8 at byte " + (invalidOffset + 1) + " of " + where;
  }

  /**
   * Splits on {@code \n}, strips a trailing {@code \r} and a leading byte order mark. A final line
   * terminator does not start another line.
   */
  static List<PhysicalLine> split(byte[] content) {
    List<PhysicalLine> lines = new ArrayList<>();
    int start = StrictUtf8.contentStart(content);
    int number = 1;
    for (int i = start; i <= content.length; i++) {
      boolean endOfFile = i == content.length;
      if (!endOfFile && content[i] != '\n') {
        continue;
      }
      if (endOfFile && start == content.length) {
        break;
      }
      int end = i > start && content[i - 1] == '\r' ? i - 1 : i;
      StrictUtf8.Decoded decoded = StrictUtf8.decode(content, start, end);
      lines.add(new PhysicalLine(number++, start, end, decoded.text(), decoded.invalidOffset()));
      start = i + 1;
    }
    return lines;
  }

  /** Receives each line of a stream with its exact bytes (without the line terminator). */
  @FunctionalInterface
  interface StreamedLineHandler {
    void accept(PhysicalLine line, byte[] bytes);
  }

  /**
   * {@link #split} for a stream: the same lines, numbered and decoded the same way, handed over one
   * at a time so that the file is never held whole. Offsets of each line are relative to its own
   * bytes.
   */
  static void stream(InputStream in, StreamedLineHandler handler) throws IOException {
    InputStream buffered =
        in instanceof BufferedInputStream ? in : new BufferedInputStream(in, 1 << 16);
    LineBuffer line = new LineBuffer();
    int number = 1;
    boolean first = true;
    int b;
    while ((b = buffered.read()) != -1) {
      if (b != '\n') {
        line.add((byte) b);
        continue;
      }
      number = emit(line, number, first, handler);
      first = false;
    }
    if (line.size > 0) {
      emit(line, number, first, handler);
    }
  }

  private static int emit(LineBuffer line, int number, boolean first, StreamedLineHandler handler) {
    byte[] bytes = line.take();
    int start = first ? StrictUtf8.contentStart(bytes) : 0;
    int end =
        bytes.length > start && bytes[bytes.length - 1] == '\r' ? bytes.length - 1 : bytes.length;
    byte[] exact =
        start == 0 && end == bytes.length ? bytes : Arrays.copyOfRange(bytes, start, end);
    StrictUtf8.Decoded decoded = StrictUtf8.decode(exact, 0, exact.length);
    handler.accept(
        new PhysicalLine(number, 0, exact.length, decoded.text(), decoded.invalidOffset()), exact);
    return number + 1;
  }

  /** A growable byte buffer for one line. */
  private static final class LineBuffer {
    private byte[] bytes = new byte[1024];
    private int size;

    void add(byte b) {
      if (size == bytes.length) {
        bytes = Arrays.copyOf(bytes, bytes.length * 2);
      }
      bytes[size++] = b;
    }

    byte[] take() {
      byte[] taken = Arrays.copyOf(bytes, size);
      size = 0;
      return taken;
    }
  }
}
