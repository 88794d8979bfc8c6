package dev.infuse.jobs.llm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.infuse.jobs.SparkTestSession;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.util.Progressable;
import org.junit.jupiter.api.Test;

/**
 * What a killed executor leaves of its journal: on a local disk every line appended, on an object
 * store every file the journal rolled past (64 lines each), and never the open one.
 */
class CallJournalTest {
  private static final int ROLL = 64;

  @Test
  void onAnObjectStoreAKillLosesOnlyTheOpenFileOfAtMostRollLines() {
    Path dir = SparkTestSession.tempDir("journal-object-store");
    CallJournal journal =
        new CallJournal(objectStore(), dir.toUri().toString(), "part-3-0-11", ROLL);
    for (int i = 0; i < 150; i++) {
      journal.append(line(i));
    }

    // A kill now never closes the open file, so the store never publishes it.
    assertThat(linesByFile(dir))
        .containsExactlyEntriesOf(
            new TreeMap<>(Map.of("part-3-0-11-0.jsonl", 64, "part-3-0-11-1.jsonl", 64)));

    journal.close();
    assertThat(linesByFile(dir))
        .containsExactlyEntriesOf(
            new TreeMap<>(
                Map.of(
                    "part-3-0-11-0.jsonl",
                    64,
                    "part-3-0-11-1.jsonl",
                    64,
                    "part-3-0-11-2.jsonl",
                    22)));
    assertThat(CallJournal.succeeded(objectStore(), dir.toUri().toString(), "part-3-0-*"))
        .hasSize(150)
        .containsKeys("key-000", "key-063", "key-064", "key-127", "key-128", "key-149");
  }

  @Test
  void onALocalDiskEveryLineIsInTheFileOnceAppendReturns() {
    Path dir = SparkTestSession.tempDir("journal-local");
    CallJournal journal =
        new CallJournal(new Configuration(), dir.toUri().toString(), "part-0-1-2", ROLL);
    for (int i = 0; i < 10; i++) {
      journal.append(line(i));
    }

    // Not closed, as after a kill: the lines are in the OS's hands already.
    assertThat(linesByFile(dir)).containsExactlyEntriesOf(Map.of("part-0-1-2-0.jsonl", 10));
    journal.close();
  }

  @Test
  void aLineAKillCutShortIsSkippedWhenTheJournalIsReadBack() throws IOException {
    Path dir = SparkTestSession.tempDir("journal-cut");
    String whole = line(0) + "\n" + line(1) + "\n";
    String cut = line(2).substring(0, 40);
    Files.writeString(dir.resolve("part-7-4-1-0.jsonl"), whole + cut);

    assertThat(CallJournal.succeeded(new Configuration(), dir.toUri().toString(), "part-7-4-*"))
        .containsOnlyKeys("key-000", "key-001");
  }

  /**
   * A Hadoop configuration whose {@code file:} scheme behaves as S3 does: a file appears, whole,
   * when its writer closes it; hflush publishes nothing; append is not supported.
   */
  static Configuration objectStore() {
    Configuration conf = new Configuration();
    conf.set("fs.file.impl", PublishOnCloseFileSystem.class.getName());
    conf.setBoolean("fs.file.impl.disable.cache", true);
    return conf;
  }

  /** The local file system with an object store's write semantics. */
  public static final class PublishOnCloseFileSystem extends RawLocalFileSystem {
    /** Every create goes through here; what is written stays in memory until close. */
    @Override
    protected OutputStream createOutputStreamWithMode(
        org.apache.hadoop.fs.Path file, boolean append, FsPermission permission)
        throws IOException {
      if (append) {
        throw new UnsupportedOperationException("append is not supported on an object store");
      }
      ByteArrayOutputStream pending = new ByteArrayOutputStream();
      return new OutputStream() {
        private boolean closed;

        @Override
        public void write(int b) {
          pending.write(b);
        }

        @Override
        public void write(byte[] bytes, int offset, int length) {
          pending.write(bytes, offset, length);
        }

        @Override
        public void close() throws IOException {
          if (!closed) {
            closed = true;
            try (OutputStream out =
                PublishOnCloseFileSystem.super.createOutputStreamWithMode(
                    file, false, permission)) {
              pending.writeTo(out);
            }
          }
        }
      };
    }

    @Override
    public FSDataOutputStream append(
        org.apache.hadoop.fs.Path file, int bufferSize, Progressable progress) {
      throw new UnsupportedOperationException("append is not supported on an object store");
    }
  }

  private static String line(int i) {
    return LlmCallRunnerTest.journaled(
            String.format("key-%03d", i), "succeeded", "answer " + i, "run-1", Instant.now())
        .toJsonLine();
  }

  /** Lines by file name, of the journal files visible in {@code dir}. */
  private static Map<String, Integer> linesByFile(Path dir) {
    Map<String, Integer> lines = new TreeMap<>();
    try (Stream<Path> files = Files.list(dir)) {
      for (Path file : files.filter(f -> f.toString().endsWith(".jsonl")).toList()) {
        lines.put(file.getFileName().toString(), Files.readAllLines(file).size());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return lines;
  }
}
