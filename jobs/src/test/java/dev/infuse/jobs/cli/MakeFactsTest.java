package dev.infuse.jobs.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.infuse.jobs.SparkTestSession;
import dev.infuse.jobs.SparkTestSession.CliResult;
import dev.infuse.udfs.facts.FactsCorpus;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class MakeFactsTest {
  @Test
  void writesTheSeededCorpusAsQualityJsonLinesAndARerunWritesTheSameBytes() throws Exception {
    Path out = SparkTestSession.tempDir("make-facts").resolve("corpus");
    CliResult first =
        SparkTestSession.cli(
            "make-facts", "--out", out.toString(), "--people", "12", "--seed", "5");
    assertThat(first.code()).as(first.toString()).isZero();
    assertThat(first.out())
        .contains("make-facts: 12 people (6 trained, 6 held_out), 72 questions, seed 5");
    Path file = out.resolve(FactsCorpus.FILE_NAME);
    assertThat(Files.readAllLines(file)).isEqualTo(FactsCorpus.generate(12, 5).jsonLines());
    byte[] bytes = Files.readAllBytes(file);

    CliResult again =
        SparkTestSession.cli(
            "make-facts", "--out", out.toString(), "--people", "12", "--seed", "5");
    assertThat(again.code()).isZero();
    assertThat(Files.readAllBytes(file)).isEqualTo(bytes);
  }

  @Test
  void theDefaultsAre200PeopleAndSeed0() throws Exception {
    Path out = SparkTestSession.tempDir("make-facts-defaults");
    CliResult result = SparkTestSession.cli("make-facts", "--out", out.toString());
    assertThat(result.code()).as(result.toString()).isZero();
    assertThat(Files.readAllLines(out.resolve(FactsCorpus.FILE_NAME)))
        .isEqualTo(FactsCorpus.generate(200, 0).jsonLines());
  }

  @Test
  void theShippedSampleIsWhatMakeFactsWritesWithItsDefaults() throws Exception {
    assertThat(
            Files.readAllLines(
                SparkTestSession.repoRoot()
                    .resolve("samples/facts")
                    .resolve(FactsCorpus.FILE_NAME)))
        .isEqualTo(FactsCorpus.generate(200, 0).jsonLines());
  }

  @Test
  void badOptionsNameTheOptionAndWhatIsExpected() throws Exception {
    Path dir = SparkTestSession.tempDir("make-facts-bad");
    CliResult one = SparkTestSession.cli("make-facts", "--out", dir.toString(), "--people", "1");
    assertThat(one.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(one.err())
        .contains("--people: got 1, expected an integer in 2..1024 (each person takes a distinct");

    CliResult word =
        SparkTestSession.cli("make-facts", "--out", dir.toString(), "--people", "many");
    assertThat(word.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(word.err()).contains("--people").contains("many");

    Path file = Files.writeString(dir.resolve("a-file"), "x");
    CliResult notADirectory = SparkTestSession.cli("make-facts", "--out", file.toString());
    assertThat(notADirectory.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(notADirectory.err())
        .contains("--out: got " + file + ", which is a file; expected a directory");

    CliResult missing = SparkTestSession.cli("make-facts");
    assertThat(missing.code()).isEqualTo(ExitCodes.USAGE);
    assertThat(missing.err()).contains("--out");
    assertThat(Files.list(dir).toList()).containsExactly(file);
  }
}
