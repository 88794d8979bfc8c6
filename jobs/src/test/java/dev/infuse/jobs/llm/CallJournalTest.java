package dev.infuse.jobs.llm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.infuse.jobs.SparkTestSession;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;

/** What a killed executor leaves of its journal, as a retried task reads it back. */
class CallJournalTest {
  @Test
  void aLineAKillCutShortIsSkippedWhenTheJournalIsReadBack() throws IOException {
    Path dir = SparkTestSession.tempDir("journal-cut");
    String whole = line(0) + "\n" + line(1) + "\n";
    String cut = line(2).substring(0, 40);
    Files.writeString(dir.resolve("part-7-4-1-0.jsonl"), whole + cut);

    assertThat(CallJournal.succeeded(new Configuration(), dir.toUri().toString(), "part-7-4-*"))
        .containsOnlyKeys("key-000", "key-001");
  }

  private static String line(int i) {
    return LlmCallRunnerTest.journaled(
            String.format("key-%03d", i), "succeeded", "answer " + i, "run-1", Instant.now())
        .toJsonLine();
  }
}
