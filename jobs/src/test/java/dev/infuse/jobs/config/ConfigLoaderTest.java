package dev.infuse.jobs.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.infuse.jobs.SparkTestSession;
import dev.infuse.jobs.chunk.ChunkConfig;
import dev.infuse.jobs.cli.JobCatalog;
import dev.infuse.jobs.evaluate.EvaluateConfig;
import dev.infuse.jobs.ingest.IngestConfig;
import dev.infuse.jobs.llm.LlmConfig;
import dev.infuse.jobs.score.ScoreConfig;
import dev.infuse.jobs.shards.ShardsConfig;
import dev.infuse.jobs.train.TrainConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigLoaderTest {
  @TempDir Path dir;

  @Test
  void defaultsBindToDocumentedValues() {
    InfuseConfig config = JobCatalog.configLoader().load();
    assertThat(config.warehouse()).isEqualTo("./warehouse");
    assertThat(config.section(ChunkConfig.class).maxTokens()).isEqualTo(1024);
    assertThat(config.section(ChunkConfig.class).overlapTokens()).isZero();
    assertThat(config.section(ChunkConfig.class).tokenizer()).isEqualTo("default");
    assertThat(config.section(IngestConfig.class).maxBadFraction()).isEqualTo(0.05);
    assertThat(config.spark().master()).isEqualTo("local[*]");
  }

  @Test
  void laterLayersWinAndSetValuesAreTyped() throws IOException {
    Path file = write("chunk:\n  max_tokens: 512\n  overlap_tokens: 32\nrun:\n  seed: 7\n");
    InfuseConfig config =
        JobCatalog.configLoader()
            .file(file)
            .set("chunk.max_tokens=256")
            .set("spark.conf.spark.sql.shuffle.partitions=16")
            .load();
    assertThat(config.section(ChunkConfig.class).maxTokens()).isEqualTo(256);
    assertThat(config.section(ChunkConfig.class).overlapTokens()).isEqualTo(32);
    assertThat(config.run().seed()).isEqualTo(7);
    assertThat(config.spark().conf()).containsEntry("spark.sql.shuffle.partitions", "16");
  }

  @Test
  void setStringsKeepsIdsAsStringsAndNestsPairs() {
    // Run ids and paths that YAML would read as a boolean, a number or a flow list stay as given.
    InfuseConfig config =
        JobCatalog.configLoader()
            .setStrings("score.runs", java.util.List.of("true", "1e3", "[x]"))
            .setStrings("score.compare", java.util.List.of(java.util.List.of("no", "0x10")))
            .setStrings("evaluate.models", java.util.List.of("models/a, b"))
            .load();
    assertThat(config.section(ScoreConfig.class).runs()).containsExactly("true", "1e3", "[x]");
    assertThat(config.section(ScoreConfig.class).compare())
        .containsExactly(java.util.List.of("no", "0x10"));
    assertThat(config.section(EvaluateConfig.class).models())
        .extracting(dev.infuse.jobs.evaluate.EvaluateModel::dir)
        .containsExactly("models/a, b");
  }

  @Test
  void evaluateModelsTakeDirectoriesAndEndpointMappingsAndNameEachBadEntryByIndexAndKey()
      throws Exception {
    InfuseConfig config =
        JobCatalog.configLoader()
            .set(
                "evaluate.models=[models/tiny, {name: smt-100m, base_url: 'http://gpu-box:8000/v1',"
                    + " model: llama3-8b-smt, api_key_env: VLLM_KEY, synthetic_tokens: 100000000,"
                    + " tokenizer: /models/llama3/tokenizer.json, max_length: 8192}]")
            .load();
    java.util.List<dev.infuse.jobs.evaluate.EvaluateModel> models =
        config.section(EvaluateConfig.class).models();
    assertThat(models.get(0).dir()).isEqualTo("models/tiny");
    assertThat(models.get(0).endpoint()).isNull();
    dev.infuse.jobs.answer.EndpointModel endpoint = models.get(1).endpoint();
    assertThat(endpoint.label()).isEqualTo("smt-100m");
    assertThat(endpoint.baseUrl()).isEqualTo("http://gpu-box:8000/v1");
    assertThat(endpoint.model()).isEqualTo("llama3-8b-smt");
    assertThat(endpoint.syntheticTokens()).isEqualTo(100_000_000L);
    assertThat(endpoint.maxLength()).isEqualTo(8192);
    assertThat(endpoint.tokenized()).as("token ids by default, as the harness").isTrue();
    // The run record keeps a directory as the string it was, and an endpoint as its keys.
    com.fasterxml.jackson.databind.JsonNode recorded =
        new com.fasterxml.jackson.databind.ObjectMapper()
            .readTree(ConfigJson.canonical(config))
            .at("/evaluate/models");
    assertThat(recorded.get(0).asText()).isEqualTo("models/tiny");
    assertThat(recorded.get(1).get("base_url").asText()).isEqualTo("http://gpu-box:8000/v1");
    assertThat(recorded.get(1).get("api_key_env").asText()).isEqualTo("VLLM_KEY");
    assertThat(recorded.get(1).get("synthetic_tokens").asLong()).isEqualTo(100_000_000L);

    ConfigException bad =
        (ConfigException)
            catchThrowable(
                () ->
                    JobCatalog.configLoader()
                        .set(
                            "evaluate.models=[models/a, {name: a2, base_ur: 'http://x:1/v1',"
                                + " model: m}, {name: a3, base_url: 'ftp://x/v1', model: m,"
                                + " synthetic_tokens: many, api_key_env: 'sk-secret-123'},"
                                + " {name: a4, base_url: 'http://x:1/v1', model: m,"
                                + " synthetic_tokens: 5, shards: shards/x}, 42,"
                                + " {name: a5, base_url: 'http://x:1/v1'}]")
                        .load());
    assertThat(bad.problems())
        .contains(
            "evaluate.models[1]: unknown key 'base_ur'; did you mean 'base_url'? Valid keys of an"
                + " endpoint model: name, base_url, model, api_key_env, synthetic_tokens,"
                + " tokenizer, shards, max_length, tokenized_requests",
            "evaluate.models[1].base_url: got nothing, expected the server's OpenAI-compatible"
                + " URL, e.g. http://gpu-box:8000/v1",
            "evaluate.models[2].synthetic_tokens: got 'many', expected an integer",
            "evaluate.models[2].base_url: got 'ftp://x/v1', expected an http or https URL, e.g."
                + " http://gpu-box:8000/v1",
            "evaluate.models[3].synthetic_tokens: got 5 with shards shards/x, expected one of"
                + " them: shards reads synthetic_tokens (and the unique and seen counts) from the"
                + " build's info.json",
            "evaluate.models[5].model: got nothing, expected the model name the server serves"
                + " (vLLM's --served-model-name)");
    assertThat(bad.problems())
        .anyMatch(p -> p.startsWith("evaluate.models[4]: got 42, expected a model directory"))
        .anyMatch(p -> p.startsWith("evaluate.models[2].api_key_env: got a value that is not"));
    // A key pasted where its variable's name belongs is never echoed.
    assertThat(bad.getMessage()).doesNotContain("sk-secret-123");

    // answer.endpoint is the same record, checked with the section's keys.
    ConfigException answer =
        (ConfigException)
            catchThrowable(
                () ->
                    JobCatalog.configLoader()
                        .set("answer.endpoint.base_url=http://x:1/v1")
                        .set("answer.endpoint.max_length=2")
                        .set("answer.model_dir=models/tiny")
                        .load());
    assertThat(answer.problems())
        .contains(
            "answer.endpoint.model: got nothing, expected the model name the server serves"
                + " (vLLM's --served-model-name)",
            "answer.endpoint.max_length: got 2, expected the server's maximum model length (>= 3),"
                + " or no max_length");
    assertThat(answer.problems())
        .anyMatch(
            p ->
                p.startsWith("answer.endpoint: got")
                    && p.endsWith(
                        "with model_dir models/tiny, expected one trained model: a model directory"
                            + " or an endpoint"));
  }

  @Test
  void evaluateOptionsAreCheckedBeforeAnyJob() {
    assertThatThrownBy(
            () ->
                JobCatalog.configLoader()
                    .set("evaluate.benchmarks=[quality, qualty]")
                    .set("evaluate.settings=[rag, rag, trained_rg]")
                    .load())
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("evaluate.benchmarks: got qualty, expected one of")
        .hasMessageContaining(
            "evaluate.settings: got trained_rg, expected closed_book, rag, trained or trained_rag")
        // The unknown name is reported on its own and left out of the settings checked for
        // duplicates, which are reported in the same error.
        .hasMessageContaining(
            "evaluate.settings: got trained_rg, expected closed_book, rag, trained or trained_rag;"
                + " did you mean trained_rag?")
        .hasMessageContaining("evaluate.settings: got [rag, rag], expected each setting once");
  }

  @Test
  void aPairWithAnUnknownNameIsReportedOnceAndLeftOut() {
    ConfigException error =
        (ConfigException)
            org.assertj.core.api.Assertions.catchThrowable(
                () ->
                    JobCatalog.configLoader()
                        .set("evaluate.compare=[[rag, rga], [rag, rag]]")
                        .load());
    assertThat(error.problems())
        .containsExactly(
            "evaluate.compare: got rga, expected closed_book, rag, trained or trained_rag; did you"
                + " mean rag?",
            "evaluate.compare: got pair [rag, rag], expected two different settings [a, b] in each"
                + " pair");
  }

  @Test
  void unknownKeyNamesTheNearestValidKey() {
    assertThatThrownBy(() -> JobCatalog.configLoader().set("chunk.max_token=12").load())
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("unknown config key 'chunk.max_token'")
        .hasMessageContaining("did you mean 'chunk.max_tokens'?");
    assertThatThrownBy(() -> JobCatalog.configLoader().set("chunck.max_tokens=12").load())
        .hasMessageContaining("did you mean 'chunk'?");
  }

  @Test
  void everyProblemIsReportedAtOnce() throws IOException {
    Path file =
        write("chunk:\n  max_tokens: lots\n  overlp_tokens: 3\ningest:\n  formatt: quality\n");
    ConfigException error =
        (ConfigException)
            org.assertj.core.api.Assertions.catchThrowable(
                () -> JobCatalog.configLoader().file(file).load());
    assertThat(error.problems()).hasSize(3);
    assertThat(error.problems())
        .anyMatch(p -> p.equals("chunk.max_tokens: got 'lots', expected an integer"));
    assertThat(error.problems()).anyMatch(p -> p.contains("did you mean 'chunk.overlap_tokens'"));
    assertThat(error.problems()).anyMatch(p -> p.contains("did you mean 'ingest.format'"));
  }

  @Test
  void semanticChecksQuoteTheValueAndTheRange() {
    assertThatThrownBy(() -> JobCatalog.configLoader().set("chunk.overlap_tokens=600").load())
        .hasMessageContaining(
            "chunk.overlap_tokens: got 600, expected 0 <= overlap < max_tokens / 2");
    assertThatThrownBy(() -> JobCatalog.configLoader().set("ingest.max_bad_fraction=1.5").load())
        .hasMessageContaining("ingest.max_bad_fraction: got 1.5, expected a fraction in 0..1");
  }

  @Test
  void malformedSetAndYamlAreClearErrors() throws IOException {
    assertThatThrownBy(() -> JobCatalog.configLoader().set("chunk.max_tokens"))
        .hasMessage("--set: got 'chunk.max_tokens', expected key=value");
    Path bad = write("chunk: [unclosed\n");
    assertThatThrownBy(() -> JobCatalog.configLoader().file(bad))
        .hasMessageContaining("not valid YAML");
    assertThatThrownBy(() -> JobCatalog.configLoader().file(dir.resolve("missing.yaml")))
        .hasMessageContaining("expected an existing YAML file");
  }

  @Test
  void canonicalJsonRedactsSecretsButKeepsEnvVarNames() {
    InfuseConfig config =
        JobCatalog.configLoader()
            .set("spark.conf.spark.hadoop.fs.s3a.secret.key=hunter2")
            .set("spark.conf.spark.hadoop.fs.s3a.access.key=AKIA123")
            .set("spark.conf.my.api_key_env=OPENAI_API_KEY")
            .set("spark.conf.hf.token=hf_abc")
            .set("chunk.max_tokens=777")
            .set("shards.tokens_per_shard=4242")
            .setString("shards.tokenizer", "/models/llama/tokenizer.json")
            .load();
    String json = ConfigJson.canonical(config);
    assertThat(json)
        .doesNotContain("hunter2")
        .doesNotContain("AKIA123")
        .doesNotContain("hf_abc")
        .contains("OPENAI_API_KEY")
        .contains("***")
        // Token counts and tokenizers are settings, not secrets: they are recorded and hashed.
        .contains("\"max_tokens\":777")
        .contains("\"tokens_per_shard\":4242")
        .contains("/models/llama/tokenizer.json");
    assertThat(ConfigJson.hash(config)).hasSize(64).isEqualTo(ConfigJson.hash(config));
    assertThat(ConfigJson.hash(config))
        .isNotEqualTo(ConfigJson.hash(JobCatalog.configLoader().load()));
  }

  @Test
  void theRecordedConfigKeepsItsShapeAcrossTheSplitIntoSections() throws IOException {
    // runs.config_json of the demo's ingest step, recorded before each job owned its section (the
    // paths made placeholders): the same layers must give the same canonical JSON, byte for byte,
    // so config hashes, and shard builds' COMPLETED hashes, are unchanged.
    String recorded =
        Files.readString(
                SparkTestSession.repoRoot()
                    .resolve("jobs/src/test/resources/config/demo-ingest-config.json"))
            .strip();
    InfuseConfig config =
        JobCatalog.configLoader()
            .setString("warehouse", "WAREHOUSE")
            .setString("ingest.format", "quality")
            .setString("ingest.input", "INPUT")
            .set("shards.sequence_length=64")
            .set("retrieve.k=4")
            .set("answer.k=4")
            .set("evaluate.benchmarks=[quality]")
            .set("evaluate.settings=[rag, trained, trained_rag]")
            .set("evaluate.compare=[[rag, trained_rag], [rag, trained]]")
            .set("evaluate.models=[models/tiny-20k, models/tiny-40k, models/tiny]")
            .load();
    assertThat(ConfigJson.canonical(config)).isEqualTo(recorded);
  }

  @Test
  void nestedSettingsRecordsBindFromTheirSectionsOwnKeys() {
    // llm.max_concurrency belongs to LlmSettings and train.steps to TrainingConfig, nested flat.
    InfuseConfig config =
        JobCatalog.configLoader()
            .set("llm.max_concurrency=7")
            .set("llm.max_tokens=99")
            .set("train.steps=12")
            .set("shards.dedup.bands=12")
            .set("shards.dedup.rows=10")
            .load();
    assertThat(config.section(LlmConfig.class).client().maxConcurrency()).isEqualTo(7);
    assertThat(config.section(LlmConfig.class).maxTokens()).isEqualTo(99);
    assertThat(config.section(TrainConfig.class).training().steps()).isEqualTo(12);
    assertThat(config.section(ShardsConfig.class).dedup().settings().bands()).isEqualTo(12);
    // The data order's seed is the run seed, set by the job: it is no key of train.
    assertThatThrownBy(() -> JobCatalog.configLoader().set("train.seed=3").load())
        .hasMessageContaining("unknown config key 'train.seed'");
    assertThatThrownBy(() -> JobCatalog.configLoader().set("llm.max_concurrency=0").load())
        .hasMessageContaining("llm.max_concurrency: got 0, expected an integer >= 1");
  }

  @Test
  void unknownNamesSuggestTheNearestAndListTheValidOnes() {
    ConfigException error =
        (ConfigException)
            org.assertj.core.api.Assertions.catchThrowable(
                () ->
                    JobCatalog.configLoader()
                        .set("answer.setting=trained-rag")
                        .set("answer.mode=loglikelyhood")
                        .set("llm.backend=opnai")
                        .set("shards.formats=[parquet, megatorn]")
                        .set("answer.k=0")
                        .load());
    assertThat(error.problems())
        .containsExactlyInAnyOrder(
            "answer.setting: got trained-rag, expected closed_book, rag, trained or trained_rag;"
                + " did you mean trained_rag?",
            "answer.mode: got loglikelyhood, expected auto, generate, loglikelihood, embedding or"
                + " behavior;"
                + " did you mean loglikelihood?",
            "llm.backend: got opnai, expected extractive, openai or djl; did you mean openai?",
            "shards.formats: got megatorn, expected parquet, jsonl or megatron; did you mean"
                + " megatron?",
            "answer.k: got 0, expected an integer >= 1");
  }

  private Path write(String yaml) throws IOException {
    Path file = Files.createTempFile(dir, "config", ".yaml");
    Files.writeString(file, yaml);
    return file;
  }
}
