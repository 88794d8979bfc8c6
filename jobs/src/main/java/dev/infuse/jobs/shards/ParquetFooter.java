package dev.infuse.jobs.shards;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import org.apache.parquet.format.ColumnChunk;
import org.apache.parquet.format.ColumnMetaData;
import org.apache.parquet.format.Encoding;
import org.apache.parquet.format.FileMetaData;
import org.apache.parquet.format.PageEncodingStats;
import org.apache.parquet.format.RowGroup;
import org.apache.parquet.format.Util;

/**
 * Puts a Parquet file's footer in a canonical form, so that its bytes are a function of the data
 * alone.
 *
 * <p>parquet-mr 1.13 collects each column chunk's encodings in a {@code HashSet<Encoding>} and
 * writes them in its iteration order. An enum's hash is its identity hash, which differs from one
 * JVM to the next, so the same rows gave {@code [PLAIN_DICTIONARY, BIT_PACKED]} in one process and
 * {@code [BIT_PACKED, PLAIN_DICTIONARY]} in another. The list is a set in the format's own terms,
 * so sorting it (and the per-page encoding statistics) changes no reader's view of the file.
 */
final class ParquetFooter {
  private static final byte[] MAGIC = "PAR1".getBytes(StandardCharsets.US_ASCII);

  private ParquetFooter() {}

  /**
   * Canonicalizes the end of a Parquet file.
   *
   * @param tail the bytes parquet-mr wrote after the last row group: any page indexes, then the
   *     footer, its 4-byte little-endian length and {@code PAR1}
   * @return the same bytes with the footer's encoding lists sorted; page indexes are unchanged, so
   *     every offset the footer records stays valid
   */
  static byte[] canonicalTail(byte[] tail) throws IOException {
    int footerLength = footerLength(tail);
    int footerStart = tail.length - 8 - footerLength;
    FileMetaData footer =
        Util.readFileMetaData(new ByteArrayInputStream(tail, footerStart, footerLength));
    sortEncodings(footer);
    ByteArrayOutputStream canonical = new ByteArrayOutputStream(tail.length);
    canonical.write(tail, 0, footerStart);
    ByteArrayOutputStream footerBytes = new ByteArrayOutputStream(footerLength);
    Util.writeFileMetaData(footer, footerBytes);
    footerBytes.writeTo(canonical);
    canonical.write(
        ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(footerBytes.size()).array());
    canonical.write(MAGIC);
    return canonical.toByteArray();
  }

  private static int footerLength(byte[] tail) throws IOException {
    if (tail.length < 8 || !Arrays.equals(tail, tail.length - 4, tail.length, MAGIC, 0, 4)) {
      throw new IOException(
          "the Parquet writer's tail does not end in a footer and PAR1 ("
              + tail.length
              + " bytes)");
    }
    int length = ByteBuffer.wrap(tail, tail.length - 8, 4).order(ByteOrder.LITTLE_ENDIAN).getInt();
    if (length <= 0 || length > tail.length - 8) {
      throw new IOException(
          "the Parquet footer's length "
              + length
              + " does not fit the "
              + tail.length
              + " bytes written after the last row group");
    }
    return length;
  }

  private static void sortEncodings(FileMetaData footer) {
    for (RowGroup group : footer.getRow_groups()) {
      for (ColumnChunk chunk : group.getColumns()) {
        ColumnMetaData column = chunk.getMeta_data();
        List<Encoding> encodings = new ArrayList<>(column.getEncodings());
        encodings.sort(Comparator.comparingInt(Encoding::getValue));
        column.setEncodings(encodings);
        if (column.isSetEncoding_stats()) {
          List<PageEncodingStats> stats = new ArrayList<>(column.getEncoding_stats());
          stats.sort(
              Comparator.comparingInt((PageEncodingStats s) -> s.getPage_type().getValue())
                  .thenComparingInt(s -> s.getEncoding().getValue()));
          column.setEncoding_stats(stats);
        }
      }
    }
  }
}
