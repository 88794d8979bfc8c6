package dev.infuse.udfs.ingest;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVParser;
import org.apache.commons.csv.CSVRecord;

/**
 * Walks a CSV file (header row, RFC 4180 quoting, fields may span lines) record by record.
 *
 * <p>Records are delimited here rather than by one parser over the whole file, so that a malformed
 * record (a stray quote, a short row) costs only itself, and so that each record knows which
 * physical lines it spans: a record is rejected when any of its lines is not valid UTF-8. Each
 * record's text is then split into fields by commons-csv. Line endings inside fields come out as
 * {@code \n}.
 */
final class CsvRecords {
  /** Turns one record into items; throws {@link BadRecordException} to reject it. */
  @FunctionalInterface
  interface RecordHandler {
    void handle(CsvRow row, RawRecord raw, ItemSink out);
  }

  /** A record's text and the 0-based indexes of its first and last physical lines. */
  private record Span(String text, int firstLine, int lastLine) {}

  /**
   * Column name to index (the first of duplicate names wins) and the number of fields a record has.
   */
  private record Header(Map<String, Integer> columns, int width) {}

  private CsvRecords() {}

  static void read(SourceFile file, ItemSink sink, RecordHandler handler) {
    byte[] content = file.content();
    List<PhysicalLine> lines = PhysicalLine.split(content);
    List<Span> spans = spans(lines);
    Header header = null;
    int recordNumber = 0;
    for (Span span : spans) {
      if (span.text().isEmpty()) {
        continue;
      }
      if (header == null) {
        header = header(span, file, sink);
        if (header == null) {
          return;
        }
        continue;
      }
      recordNumber++;
      PhysicalLine first = lines.get(span.firstLine());
      String location = "record " + recordNumber + " (line " + first.number() + ")";
      PhysicalLine invalid = firstInvalid(lines, span);
      if (invalid != null) {
        byte[] bytes = Arrays.copyOfRange(content, first.start(), lines.get(span.lastLine()).end());
        RawRecord raw = new RawRecord(file.path(), location, span.text(), bytes);
        sink.reject(raw.reject(invalid.invalidReason("line " + invalid.number())));
        continue;
      }
      if (isBlank(span.text())) {
        sink.blank(location);
        continue;
      }
      RawRecord raw = new RawRecord(file.path(), location, span.text(), null);
      Header columns = header;
      RecordBuffer.readAtomically(
          raw, sink, out -> handler.handle(row(columns, span.text()), raw, out));
    }
  }

  /**
   * Cuts the lines into records: a line break ends a record unless it is inside a quoted field. A
   * quote opens a quoted field only at the start of a field, as commons-csv reads it.
   */
  private static List<Span> spans(List<PhysicalLine> lines) {
    List<Span> spans = new ArrayList<>();
    StringBuilder text = new StringBuilder();
    boolean atFieldStart = true;
    boolean inQuotes = false;
    int firstLine = 0;
    for (int index = 0; index < lines.size(); index++) {
      String line = lines.get(index).text();
      for (int i = 0; i < line.length(); i++) {
        char c = line.charAt(i);
        if (inQuotes) {
          if (c == '"') {
            boolean escaped = i + 1 < line.length() && line.charAt(i + 1) == '"';
            if (escaped) {
              i++;
            } else {
              inQuotes = false;
            }
          }
        } else if (c == '"' && atFieldStart) {
          inQuotes = true;
          atFieldStart = false;
        } else {
          atFieldStart = c == ',';
        }
      }
      text.append(line);
      if (inQuotes && index + 1 < lines.size()) {
        text.append('\n');
        continue;
      }
      spans.add(new Span(text.toString(), firstLine, index));
      text.setLength(0);
      atFieldStart = true;
      inQuotes = false;
      firstLine = index + 1;
    }
    return spans;
  }

  private static Header header(Span span, SourceFile file, ItemSink sink) {
    try {
      List<String> names = fields(span.text());
      Map<String, Integer> columns = new LinkedHashMap<>();
      for (int i = 0; i < names.size(); i++) {
        columns.putIfAbsent(names.get(i).strip(), i);
      }
      return new Header(columns, names.size());
    } catch (BadRecordException e) {
      String location = "header (line " + (span.firstLine() + 1) + ")";
      sink.reject(
          new Rejection(
              file.path(), location, span.text(), null, "malformed CSV header: " + e.reason()));
      return null;
    }
  }

  /**
   * Whether every field of the record is empty ({@code ,,,,}): a placeholder row, reported as blank
   * rather than rejected, so it never counts toward the bad-record ceiling.
   */
  private static boolean isBlank(String text) {
    return text.chars().allMatch(c -> c == ',' || Character.isWhitespace(c));
  }

  private static PhysicalLine firstInvalid(List<PhysicalLine> lines, Span span) {
    for (int i = span.firstLine(); i <= span.lastLine(); i++) {
      if (!lines.get(i).valid()) {
        return lines.get(i);
      }
    }
    return null;
  }

  private static CsvRow row(Header header, String text) {
    List<String> values = fields(text);
    if (values.size() != header.width()) {
      throw new BadRecordException(
          "record has "
              + values.size()
              + " fields, expected "
              + header.width()
              + " as in the header");
    }
    return new CsvRow(header.columns(), values);
  }

  private static List<String> fields(String text) {
    try (CSVParser parser = CSVParser.parse(text, CSVFormat.DEFAULT)) {
      List<CSVRecord> records = parser.getRecords();
      if (records.size() != 1) {
        throw new BadRecordException("malformed CSV: expected one record, found " + records.size());
      }
      return records.get(0).toList();
    } catch (IOException | UncheckedIOException | IllegalStateException e) {
      throw new BadRecordException("malformed CSV: " + e.getMessage());
    }
  }
}
