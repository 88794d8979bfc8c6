package dev.infuse.udfs.ingest;

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
}
