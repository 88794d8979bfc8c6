package dev.infuse.jobs.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.infuse.jobs.QualitySample;
import dev.infuse.jobs.SparkTestSession;
import dev.infuse.jobs.SparkTestSession.CliResult;
import dev.infuse.jobs.chunk.ChunkConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class CliTest {
  private static String warehouse;

  @BeforeAll
  static void ingestSample() {
    warehouse = QualitySample.ingestedCopy("cli");
  }

  private static final List<String> EVERY_JOB =
      List.of(
          "ingest",
          "chunk",
          "embed",
          "gen-qa",
          "gen-docs",
          "build-shards",
          "train",
          "index",
          "retrieve",
          "answer",
          "score",
          "fit-scaling",
          "report",
          "evaluate");

  @Test
  void helpListsEveryJob() {
    CliResult result = SparkTestSession.cli("--help");
    assertThat(result.code()).isZero();
    assertThat(result.out())
        .contains(EVERY_JOB.toArray(String[]::new))
        .contains("sql", "validate", "demo")
        .contains("bin/infuse bench [--only REGEX] [--out DIR]");
  }

  @Test
  void everyJobTakesHelpAndTheCommonOptions() {
    for (String job : EVERY_JOB) {
      CliResult result = SparkTestSession.cli(job, "--help");
      assertThat(result.code()).as(job).isZero();
      assertThat(result.out()).as(job).contains("--config", "--set", "--warehouse", "--master");
    }
  }

  @Test
  void everyCommandListsByAOneLineSummaryThatReadsWhole() {
    CliResult result = SparkTestSession.cli("--help");
    List<String> lines = result.out().lines().toList();
    int first = lines.indexOf("Commands:") + 1;
    int end = first;
    while (end < lines.size() && !lines.get(end).isEmpty()) {
      end++;
    }
    for (String line : lines.subList(first, end)) {
      // A continuation line would start with blanks: the summary wrapped.
      assertThat(line).as("a command's line in --help").matches("  [a-z-]+ +[A-Z].*\\.");
    }
    for (Class<?> command : JobCatalog.COMMANDS) {
      String[] header = command.getAnnotation(picocli.CommandLine.Command.class).header();
      assertThat(header).as(command.getSimpleName()).hasSize(1);
      assertThat(header[0]).as(command.getSimpleName()).endsWith(".");
    }
  }

  @Test
  void everyBoundOptionShowsItsKeyAndTheDefaultFromDefaultsYaml() {
    CliResult chunk = SparkTestSession.cli("chunk", "--help");
    assertThat(chunk.out().replaceAll("\\s+", " "))
        .contains("--max-tokens=N Chunk size in tokens. (chunk.max_tokens, default 1024)")
        .contains("(chunk.overlap_tokens, default 0)")
        .contains("(chunk.corpus)")
        .contains("(warehouse, default ./warehouse)")
        .contains("(spark.master, default local[*])");
    CliResult shards = SparkTestSession.cli("build-shards", "--help");
    assertThat(shards.out().replaceAll("\\s+", " "))
        .contains("(shards.formats, default [parquet, jsonl, megatron])");
    // Every bound option of every command names a key the config has.
    var defaults = JobCatalog.configLoader().tree();
    for (Class<?> command : JobCatalog.COMMANDS) {
      for (var field : fields(command)) {
        ConfigKey key = field.getAnnotation(ConfigKey.class);
        if (key == null) {
          continue;
        }
        com.fasterxml.jackson.databind.JsonNode node = defaults;
        for (String part : key.value().split("\\.")) {
          node = node.get(part);
          assertThat(node).as(command.getSimpleName() + " binds " + key.value()).isNotNull();
        }
      }
    }
  }

  @Test
  void demoStopsAfterTheStepItIsGivenAndKeepsThatStepsTables() {
    CliResult outOfRange = SparkTestSession.cli("demo", "--stop-after", "0");
    assertThat(outOfRange.code()).isNotZero();
    assertThat(outOfRange.err()).contains("--stop-after: got 0, expected a step from 1 to 42");

    String demo = SparkTestSession.tempDir("demo-stop").resolve("warehouse").toString();
    CliResult first = SparkTestSession.cli("demo", "--warehouse", demo, "--stop-after", "1");
    assertThat(first.code()).as(first.toString()).isZero();
    assertThat(first.out())
        .contains("== 1/42 ingest: QuALITY sample")
        .doesNotContain("== 2/42")
        .contains("Demo stopped after step 1 of 42 (--stop-after)");
    dev.infuse.jobs.io.Warehouse tables =
        new dev.infuse.jobs.io.Warehouse(SparkTestSession.get(), demo);
    assertThat(tables.read("documents").count()).isEqualTo(5);
    assertThat(tables.read("runs").count()).isEqualTo(1);
  }

  @Test
  void flagsWinOverSetAndSetOverFiles() throws IOException {
    Path file = SparkTestSession.tempDir("flags").resolve("c.yaml");
    Files.writeString(file, "chunk:\n  max_tokens: 300\n  overlap_tokens: 8\n  corpus: a\n");
    picocli.CommandLine line = new picocli.CommandLine(new ChunkCommand());
    line.parseArgs(
        "--config",
        file.toString(),
        "--set",
        "chunk.max_tokens=999",
        "--set",
        "chunk.corpus=b",
        "--max-tokens",
        "256",
        "--warehouse",
        "/tmp/w");
    ChunkCommand command = line.getCommand();
    var config = command.common.loader(line.getCommandSpec()).load();
    ChunkConfig chunk = config.section(ChunkConfig.class);
    assertThat(chunk.maxTokens()).isEqualTo(256);
    assertThat(chunk.overlapTokens()).isEqualTo(8);
    assertThat(chunk.corpus()).isEqualTo("b");
    assertThat(config.warehouse()).isEqualTo("/tmp/w");
    // An option not given sets nothing: the file's value stands.
    picocli.CommandLine bare = new picocli.CommandLine(new ChunkCommand());
    bare.parseArgs("--config", file.toString());
    ChunkCommand again = bare.getCommand();
    assertThat(
            again
                .common
                .loader(bare.getCommandSpec())
                .load()
                .section(ChunkConfig.class)
                .maxTokens())
        .isEqualTo(300);
  }

  private static List<java.lang.reflect.Field> fields(Class<?> type) {
    List<java.lang.reflect.Field> fields = new java.util.ArrayList<>();
    for (Class<?> c = type; c != null; c = c.getSuperclass()) {
      fields.addAll(List.of(c.getDeclaredFields()));
    }
    return fields;
  }

  @Test
  void unknownOptionNamesTheNearestValidOne() {
    CliResult result = SparkTestSession.cli("ingest", "--formt=quality");
    assertThat(result.code()).isEqualTo(2);
    assertThat(result.err())
        .contains("Unknown option: '--formt=quality'")
        .contains("Possible solutions: --format");
  }

  @Test
  void unknownConfigKeyNamesTheNearestValidOne() {
    CliResult result =
        SparkTestSession.cli("chunk", "--warehouse", warehouse, "--set", "chunk.max_tokns=64");
    assertThat(result.code()).isEqualTo(2);
    assertThat(result.err())
        .contains("unknown config key 'chunk.max_tokns'; did you mean 'chunk.max_tokens'?");
  }

  @Test
  void sqlJsonPrintsOneObjectPerRowWithEveryColumn() throws IOException {
    CliResult result =
        SparkTestSession.cli(
            "sql",
            "--warehouse",
            warehouse,
            "--json",
            "SELECT question_id, gold, gold_index, doc_id, options FROM questions ORDER BY question_id LIMIT 3");
    assertThat(result.code()).as(result.toString()).isZero();
    List<String> lines = result.out().lines().toList();
    assertThat(lines).hasSize(3);
    JsonNode first = new ObjectMapper().readTree(lines.get(0));
    assertThat(first.get("question_id").asText()).startsWith("quality:");
    assertThat(first.get("options").isArray()).isTrue();
    assertThat(first.has("gold_index")).isTrue();
  }

  @Test
  void sqlJsonKeepsNullColumns() throws IOException {
    CliResult result =
        SparkTestSession.cli(
            "sql",
            "--warehouse",
            warehouse,
            "--json",
            "SELECT CAST(NULL AS STRING) AS nothing, count(*) AS n FROM documents");
    JsonNode row = new ObjectMapper().readTree(result.out().lines().findFirst().orElseThrow());
    assertThat(row.has("nothing")).isTrue();
    assertThat(row.get("nothing").isNull()).isTrue();
    assertThat(row.get("n").asLong()).isEqualTo(5);
  }

  @Test
  void sqlTableIsAlignedAndCountsRows() {
    CliResult result =
        SparkTestSession.cli(
            "sql",
            "--warehouse",
            warehouse,
            "SELECT benchmark, count(*) AS n FROM questions GROUP BY benchmark");
    assertThat(result.code()).as(result.toString()).isZero();
    assertThat(result.out().lines().toList())
        .containsExactly("benchmark | n", "----------+---", "quality   | 62", "(1 row)");
  }

  @Test
  void sqlOnAnUnknownTableListsTheTables() {
    CliResult result =
        SparkTestSession.cli("sql", "--warehouse", warehouse, "SELECT * FROM chunkz");
    assertThat(result.code()).isEqualTo(2);
    assertThat(result.err()).contains("chunkz").contains("documents, quarantine, questions, runs");
  }

  @Test
  void validateAcceptsTheRepositoryConfigsPromptsAndContracts() {
    CliResult result = SparkTestSession.cli("validate");
    assertThat(result.code()).as(result.toString()).isZero();
    assertThat(result.out()).contains("data-contracts/questions.json").contains(", 0 error(s)");
  }

  @Test
  void validateReportsEveryErrorInEveryFile() throws IOException {
    Path conf = SparkTestSession.tempDir("conf");
    Files.writeString(conf.resolve("a.yaml"), "chunk:\n  max_tokenz: 5\nwarehous: x\n");
    Files.createDirectories(conf.resolve("prompts"));
    Files.writeString(
        conf.resolve("prompts/p.yaml"),
        "id: p\nversion: 0\nmessages:\n  - role: robot\n    content: hi {{name\n");
    Path contracts = SparkTestSession.tempDir("contracts");
    Files.writeString(
        contracts.resolve("t.json"),
        "{\"table\": \"t\", \"version\": 1, \"primary_key\": [\"id\"],"
            + " \"columns\": [{\"name\": \"id\", \"type\": \"strng\", \"nullable\": false}]}");
    CliResult result =
        SparkTestSession.cli(
            "validate", "--conf-dir", conf.toString(), "--contracts-dir", contracts.toString());
    assertThat(result.code()).isEqualTo(1);
    assertThat(result.out())
        .contains("did you mean 'chunk.max_tokens'")
        .contains("did you mean 'warehouse'")
        .contains("version: got 0, expected an integer >= 1")
        .contains("messages[0].role: got robot")
        .contains("malformed placeholder")
        .contains("column id: type 'strng' is not a Spark SQL type")
        .contains("3 file(s) checked, 6 error(s)");
  }
}
