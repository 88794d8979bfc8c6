package dev.infuse.udfs.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;

/**
 * A test file assembled record by record, each with the outcome it must have, and the check that
 * the reader's output accounts for every record: good ones as the same items they yield alone, bad
 * ones as rejections at their location, nothing lost and nothing extra.
 */
final class FuzzedFile {
  enum Outcome {
    /** Only items, equal to what the record yields on its own. */
    ITEMS,
    /** Only rejections. */
    REJECTED,
    /** Items and a rejection for a part of it (one bad question of a set). */
    PARTIAL
  }

  /** One record as written, where it starts, and what must come of it. */
  record Entry(
      String location, byte[] bytes, Outcome outcome, String reasonMentions, SourceFile alone) {}

  private final ByteArrayOutputStream content = new ByteArrayOutputStream();
  private final List<Entry> entries = new ArrayList<>();
  private int newlines;

  /** Appends raw bytes that are not a record (header, blank lines, separators). */
  FuzzedFile raw(byte[] bytes) {
    content.writeBytes(bytes);
    for (byte b : bytes) {
      newlines += b == '\n' ? 1 : 0;
    }
    return this;
  }

  /** The 1-based line the next appended bytes start on. */
  int nextLine() {
    return newlines + 1;
  }

  FuzzedFile record(
      String location, byte[] bytes, Outcome outcome, String reasonMentions, SourceFile alone) {
    entries.add(new Entry(location, bytes, outcome, reasonMentions, alone));
    return raw(bytes);
  }

  SourceFile file(String path) {
    return new SourceFile(path, content.toByteArray());
  }

  List<Entry> entries() {
    return entries;
  }

  /** Reads the file and checks every record's outcome. */
  void check(BenchmarkReader reader, String path) {
    CollectingSink sink = CollectingSink.read(reader, file(path));
    // Read as a stream (how ingest opens files), the file gives exactly the same items and
    // rejections as read whole.
    byte[] bytes = content.toByteArray();
    CollectingSink streamed =
        CollectingSink.read(
            reader, SourceFile.streamed(path, () -> new java.io.ByteArrayInputStream(bytes)));
    assertThat(streamed).usingRecursiveComparison().isEqualTo(sink);
    int withItems = 0;
    int rejected = 0;
    for (Entry entry : entries) {
      List<Object> items = sink.contentAt(entry.location());
      List<Rejection> rejections = sink.rejectionsAt(entry.location());
      String what =
          entry.location()
              + " ("
              + entry.outcome()
              + ", expecting '"
              + entry.reasonMentions()
              + "')";
      switch (entry.outcome()) {
        case ITEMS -> {
          assertThat(rejections).as(what).isEmpty();
          assertThat(items)
              .as(what)
              .isNotEmpty()
              .isEqualTo(CollectingSink.read(reader, entry.alone()).content());
        }
        case REJECTED -> {
          assertThat(items).as(what).isEmpty();
          assertThat(rejections).as(what).isNotEmpty();
        }
        case PARTIAL -> {
          assertThat(items).as(what).isNotEmpty();
          assertThat(rejections).as(what).isNotEmpty();
        }
      }
      assertThat(rejections)
          .as(what)
          .allSatisfy(
              r -> {
                assertThat(r.source()).isEqualTo(path);
                assertThat(r.reason()).isNotBlank();
                assertThat(r.payload()).isNotEmpty();
              });
      if (entry.reasonMentions() != null) {
        assertThat(rejections)
            .as(what)
            .anySatisfy(r -> assertThat(r.reason()).contains(entry.reasonMentions()));
      }
      withItems += entry.outcome() == Outcome.ITEMS ? 1 : 0;
      rejected += entry.outcome() == Outcome.REJECTED ? 1 : 0;
    }
    long partial = entries.stream().filter(e -> e.outcome() == Outcome.PARTIAL).count();
    List<String> locations = entries.stream().map(Entry::location).toList();
    assertThat(locations).doesNotHaveDuplicates();
    assertThat(locations).containsAll(sink.itemLocations()).containsAll(sink.rejectionLocations());
    assertThat(sink.itemLocations()).hasSize(withItems + (int) partial);
    assertThat(sink.rejectionLocations()).hasSize(rejected + (int) partial);
    assertThat(withItems + rejected + partial).isEqualTo(entries.size());
  }
}
