package dev.infuse.udfs.ingest;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

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
    if (file.streamed()) {
      try (InputStream in = file.open()) {
        PhysicalLine.stream(in, (line, bytes) -> handle(file, sink, handler, line, bytes));
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read " + file.path(), e);
      }
      return;
    }
    byte[] content = file.content();
    for (PhysicalLine line : PhysicalLine.split(content)) {
      handle(file, sink, handler, line, line.valid() ? null : line.bytes(content));
    }
  }

  /** One line: rejected when it is not UTF-8, skipped when blank, else parsed and handled. */
  private static void handle(
      SourceFile file, ItemSink sink, RecordHandler handler, PhysicalLine line, byte[] bytes) {
    String location = "line " + line.number();
    if (!line.valid()) {
      RawRecord raw = new RawRecord(file.path(), location, line.text(), bytes);
      sink.reject(raw.reject(line.invalidReason("the line")));
      return;
    }
    if (line.text().isBlank()) {
      return;
    }
    RawRecord raw = new RawRecord(file.path(), location, line.text(), null);
    RecordBuffer.readAtomically(
        raw, sink, out -> handler.handle(Json.parseObject(line.text()), raw, out));
  }
}
