package dev.infuse.jobs.shards;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.infuse.jobs.SparkTestSession;
import dev.infuse.udfs.mix.MixtureSpec;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class MixtureFilesTest {
  @Test
  void theShippedMixturesReadAndDifferOnlyInTheirQaFraction() {
    Path dir = SparkTestSession.repoRoot().resolve("conf/mixtures");
    MixtureSpec mixed = MixtureFiles.read(dir.resolve("smt-mixed.yaml"));
    assertThat(mixed.qaFraction()).isEqualTo(0.5);
    assertThat(mixed.documentWeights()).containsEntry("synthetic_docs.focal", 0.2);
    assertThat(MixtureFiles.read(dir.resolve("smt-qa-only.yaml")).qaFraction()).isEqualTo(1.0);
    assertThat(MixtureFiles.read(dir.resolve("smt-docs-only.yaml")).qaFraction()).isEqualTo(0.0);
  }

  @Test
  void unknownKeysAndBadValuesAreNamedWithTheFile() throws Exception {
    Path dir = SparkTestSession.tempDir("mixtures");
    Path typo = dir.resolve("typo.yaml");
    Files.writeString(
        typo,
        "name: m\nversion: 1\ntotal_tokens: 0\nqa_fraction: 0.5\nreplay_fraction: 0\n"
            + "document_weights: {documents: 1.0}\nmax_epoch: 2\nseed: 0\n");
    assertThat(MixtureFiles.problems(typo))
        .singleElement()
        .asString()
        .contains("typo.yaml: unknown key max_epoch, expected one of")
        .contains("; missing key max_epochs");

    Path bad = dir.resolve("bad.yaml");
    Files.writeString(
        bad,
        "name: m\nversion: 1\ntotal_tokens: 1000\nqa_fraction: 0.5\nreplay_fraction: 0\n"
            + "document_weights: {documents: 0.6, synthetic_docs.entity: 0.6}\nmax_epochs: 2\nseed: 0\n");
    assertThatThrownBy(() -> MixtureFiles.read(bad))
        .hasMessageContaining("bad.yaml: document_weights: sum to 1.2");
  }
}
