package dev.infuse.jobs.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigLoaderTest {
  @TempDir Path dir;

  @Test
  void defaultsBindToDocumentedValues() {
    InfuseConfig config = ConfigLoader.withDefaults().load();
    assertThat(config.warehouse()).isEqualTo("./warehouse");
    assertThat(config.chunk().maxTokens()).isEqualTo(1024);
    assertThat(config.chunk().overlapTokens()).isZero();
    assertThat(config.chunk().tokenizer()).isEqualTo("default");
    assertThat(config.ingest().maxBadFraction()).isEqualTo(0.05);
    assertThat(config.spark().master()).isEqualTo("local[*]");
  }

  @Test
  void laterLayersWinAndSetValuesAreTyped() throws IOException {
    Path file = write("chunk:\n  max_tokens: 512\n  overlap_tokens: 32\nrun:\n  seed: 7\n");
    InfuseConfig config =
        ConfigLoader.withDefaults()
            .file(file)
            .set("chunk.max_tokens=256")
            .set("spark.conf.spark.sql.shuffle.partitions=16")
            .load();
    assertThat(config.chunk().maxTokens()).isEqualTo(256);
    assertThat(config.chunk().overlapTokens()).isEqualTo(32);
    assertThat(config.run().seed()).isEqualTo(7);
    assertThat(config.spark().conf()).containsEntry("spark.sql.shuffle.partitions", "16");
  }

  @Test
  void setStringsKeepsIdsAsStringsAndNestsPairs() {
    // Run ids and paths that YAML would read as a boolean, a number or a flow list stay as given.
    InfuseConfig config =
        ConfigLoader.withDefaults()
            .setStrings("score.runs", java.util.List.of("true", "1e3", "[x]"))
            .setStrings("score.compare", java.util.List.of(java.util.List.of("no", "0x10")))
            .setStrings("evaluate.models", java.util.List.of("models/a, b"))
            .load();
    assertThat(config.score().runs()).containsExactly("true", "1e3", "[x]");
    assertThat(config.score().compare()).containsExactly(java.util.List.of("no", "0x10"));
    assertThat(config.evaluate().models()).containsExactly("models/a, b");
  }

  @Test
  void evaluateOptionsAreCheckedBeforeAnyJob() {
    assertThatThrownBy(
            () ->
                ConfigLoader.withDefaults()
                    .set("evaluate.benchmarks=[quality, qualty]")
                    .set("evaluate.settings=[rag, rag, trained_rg]")
                    .load())
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("evaluate.benchmarks: got qualty, expected one of")
        .hasMessageContaining(
            "evaluate.settings: got trained_rg, expected closed_book, rag, trained or trained_rag")
        .hasMessageContaining(
            "evaluate.settings: got [rag, rag, trained_rg], expected each setting once");
  }

  @Test
  void unknownKeyNamesTheNearestValidKey() {
    assertThatThrownBy(() -> ConfigLoader.withDefaults().set("chunk.max_token=12").load())
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("unknown config key 'chunk.max_token'")
        .hasMessageContaining("did you mean 'chunk.max_tokens'?");
    assertThatThrownBy(() -> ConfigLoader.withDefaults().set("chunck.max_tokens=12").load())
        .hasMessageContaining("did you mean 'chunk'?");
  }

  @Test
  void everyProblemIsReportedAtOnce() throws IOException {
    Path file =
        write("chunk:\n  max_tokens: lots\n  overlp_tokens: 3\ningest:\n  formatt: quality\n");
    ConfigException error =
        (ConfigException)
            org.assertj.core.api.Assertions.catchThrowable(
                () -> ConfigLoader.withDefaults().file(file).load());
    assertThat(error.problems()).hasSize(3);
    assertThat(error.problems())
        .anyMatch(p -> p.equals("chunk.max_tokens: got 'lots', expected an integer"));
    assertThat(error.problems()).anyMatch(p -> p.contains("did you mean 'chunk.overlap_tokens'"));
    assertThat(error.problems()).anyMatch(p -> p.contains("did you mean 'ingest.format'"));
  }

  @Test
  void semanticChecksQuoteTheValueAndTheRange() {
    assertThatThrownBy(() -> ConfigLoader.withDefaults().set("chunk.overlap_tokens=600").load())
        .hasMessageContaining(
            "chunk.overlap_tokens: got 600, expected 0 <= overlap < max_tokens / 2");
    assertThatThrownBy(() -> ConfigLoader.withDefaults().set("ingest.max_bad_fraction=1.5").load())
        .hasMessageContaining("ingest.max_bad_fraction: got 1.5, expected a fraction in 0..1");
  }

  @Test
  void malformedSetAndYamlAreClearErrors() throws IOException {
    assertThatThrownBy(() -> ConfigLoader.withDefaults().set("chunk.max_tokens"))
        .hasMessage("--set: got 'chunk.max_tokens', expected key=value");
    Path bad = write("chunk: [unclosed\n");
    assertThatThrownBy(() -> ConfigLoader.withDefaults().file(bad))
        .hasMessageContaining("not valid YAML");
    assertThatThrownBy(() -> ConfigLoader.withDefaults().file(dir.resolve("missing.yaml")))
        .hasMessageContaining("expected an existing YAML file");
  }

  @Test
  void canonicalJsonRedactsSecretsButKeepsEnvVarNames() {
    InfuseConfig config =
        ConfigLoader.withDefaults()
            .set("spark.conf.spark.hadoop.fs.s3a.secret.key=hunter2")
            .set("spark.conf.spark.hadoop.fs.s3a.access.key=AKIA123")
            .set("spark.conf.my.api_key_env=OPENAI_API_KEY")
            .load();
    String json = ConfigJson.canonical(config);
    assertThat(json)
        .doesNotContain("hunter2")
        .doesNotContain("AKIA123")
        .contains("OPENAI_API_KEY")
        .contains("***");
    assertThat(ConfigJson.hash(config)).hasSize(64).isEqualTo(ConfigJson.hash(config));
    assertThat(ConfigJson.hash(config))
        .isNotEqualTo(ConfigJson.hash(ConfigLoader.withDefaults().load()));
  }

  private Path write(String yaml) throws IOException {
    Path file = Files.createTempFile(dir, "config", ".yaml");
    Files.writeString(file, yaml);
    return file;
  }
}
