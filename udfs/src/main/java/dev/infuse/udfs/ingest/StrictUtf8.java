package dev.infuse.udfs.ingest;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Decodes UTF-8 strictly and says where it first breaks. {@code new String(bytes, UTF_8)} silently
 * replaces bad bytes, which would let corrupted text into the tables unnoticed.
 */
final class StrictUtf8 {
  private StrictUtf8() {}

  /**
   * @param text the decoded text; when invalid, decoded with U+FFFD replacements
   * @param invalidOffset 0-based offset (within the decoded range) of the first invalid byte, or -1
   */
  record Decoded(String text, int invalidOffset) {
    boolean valid() {
      return invalidOffset < 0;
    }
  }

  static Decoded decode(byte[] bytes, int from, int to) {
    CharsetDecoder decoder =
        StandardCharsets.UTF_8
            .newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT);
    ByteBuffer in = ByteBuffer.wrap(bytes, from, to - from);
    CharBuffer out = CharBuffer.allocate(to - from);
    CoderResult result = decoder.decode(in, out, true);
    if (!result.isError()) {
      result = decoder.flush(out);
    }
    if (result.isError()) {
      return new Decoded(
          new String(bytes, from, to - from, StandardCharsets.UTF_8), in.position() - from);
    }
    out.flip();
    return new Decoded(out.toString(), -1);
  }

  /** Where the content starts: after a UTF-8 byte order mark, if there is one. */
  static int contentStart(byte[] bytes) {
    boolean bom =
        bytes.length >= 3
            && (bytes[0] & 0xff) == 0xef
            && (bytes[1] & 0xff) == 0xbb
            && (bytes[2] & 0xff) == 0xbf;
    return bom ? 3 : 0;
  }
}
