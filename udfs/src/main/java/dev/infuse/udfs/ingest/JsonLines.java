package dev.infuse.udfs.ingest;

import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * Walks a JSON Lines file record by record. Each line is decoded and parsed on its own, so invalid
 * UTF-8 or a truncated object costs exactly that line; blank lines are not records and are skipped.
 */
final class JsonLines {
  /**
   * Turns one parsed line into items; throws {@link BadRecordException} to reject the whole line.
   */
  @FunctionalInterface
  interface RecordHandler {
    void handle(ObjectNode record, RawRecord raw, ItemSink out);
  }

  private JsonLines() {}

  static void read(SourceFile file, ItemSink sink, RecordHandler handler) {
    byte[] content = file.content();
    for (PhysicalLine line : PhysicalLine.split(content)) {
      String location = "line " + line.number();
      if (!line.valid()) {
        RawRecord raw = new RawRecord(file.path(), location, line.text(), line.bytes(content));
        sink.reject(raw.reject(line.invalidReason("the line")));
        continue;
      }
      if (line.text().isBlank()) {
        continue;
      }
      RawRecord raw = new RawRecord(file.path(), location, line.text(), null);
      RecordBuffer.readAtomically(
          raw, sink, out -> handler.handle(Json.parseObject(line.text()), raw, out));
    }
  }
}
