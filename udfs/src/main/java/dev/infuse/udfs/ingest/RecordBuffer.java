package dev.infuse.udfs.ingest;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * Holds what one record produced until the record is fully read, so that a record that fails half
 * way leaves no partial items behind: it yields either all its items or one rejection.
 */
final class RecordBuffer implements ItemSink {
  private final List<Consumer<ItemSink>> emitted = new ArrayList<>();

  private RecordBuffer() {}

  /**
   * Runs {@code work} against a buffer and passes its output on to {@code sink}; if the work fails,
   * emits a single rejection of {@code raw} instead. Unexpected runtime errors are caught too,
   * because a reader must never throw on bad data.
   */
  static void readAtomically(RawRecord raw, ItemSink sink, Consumer<ItemSink> work) {
    RecordBuffer buffer = new RecordBuffer();
    try {
      work.accept(buffer);
    } catch (BadRecordException e) {
      sink.reject(raw.reject(e.reason()));
      return;
    } catch (RuntimeException e) {
      sink.reject(raw.reject("could not read record: " + e));
      return;
    }
    buffer.emitted.forEach(item -> item.accept(sink));
  }

  @Override
  public void document(DocumentRecord document) {
    emitted.add(sink -> sink.document(document));
  }

  @Override
  public void question(QuestionRecord question) {
    emitted.add(sink -> sink.question(question));
  }

  @Override
  public void reject(Rejection rejection) {
    emitted.add(sink -> sink.reject(rejection));
  }

  @Override
  public void blank(String location) {
    emitted.add(sink -> sink.blank(location));
  }
}
