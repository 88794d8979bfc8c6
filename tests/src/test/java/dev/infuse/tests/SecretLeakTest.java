package dev.infuse.tests;

import static org.assertj.core.api.Assertions.assertThat;

import dev.infuse.jobs.QualitySample;
import dev.infuse.jobs.SparkTestSession;
import dev.infuse.jobs.io.Warehouse;
import dev.infuse.udfs.llm.FakeOpenAiServer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.spark.api.java.function.FilterFunction;
import org.junit.jupiter.api.Test;

/**
 * The API key reaches the server and nothing else: not a byte of everything {@code bin/infuse
 * gen-qa} writes to stdout and stderr (log4j included), not a row of any table, not a file of the
 * warehouse (Delta logs, journals, dumps).
 */
class SecretLeakTest {
  /** Every table an ingest, chunk and gen-qa leave, so an empty list cannot pass. */
  private static final List<String> TABLES =
      List.of(
          "chunks", "documents", "llm_calls", "quarantine", "questions", "runs", "synthetic_qa");

  /** The tables gen-qa wrote or read: these must hold rows for the scan to mean anything. */
  private static final List<String> FILLED =
      List.of("chunks", "documents", "llm_calls", "runs", "synthetic_qa");

  @Test
  void theApiKeyAppearsInNoOutputTableOrFile() throws Exception {
    String secret = System.getenv("INFUSE_TEST_API_KEY");
    assertThat(secret).as("surefire sets INFUSE_TEST_API_KEY").isNotBlank();
    String warehouse = QualitySample.chunkedCopy(512, "secret");
    String printed;
    try (FakeOpenAiServer server = new FakeOpenAiServer()) {
      server.requireApiKey(secret);
      server.setResponder(request -> "[{\"question\": \"Q?\", \"answer\": \"A.\"}]");
      List<String> command =
          new ArrayList<>(
              List.of(
                  SparkTestSession.repoRoot().resolve("bin/infuse").toString(),
                  "gen-qa",
                  "--warehouse",
                  warehouse,
                  "--set",
                  "gen_qa.max_units=2",
                  "--set",
                  "llm.backend=openai",
                  "--set",
                  "llm.base_url=" + server.baseUrl(),
                  "--set",
                  "llm.model=fake-1",
                  "--set",
                  "llm.api_key_env=INFUSE_TEST_API_KEY"));
      ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
      builder
          .environment()
          .put("INFUSE_JAVA_OPTS", "-Xmx1g " + SparkTestSession.FAST_SMALL_JOBS_JAVA_OPTS);
      builder.environment().put("INFUSE_TEST_API_KEY", secret);
      Process process = builder.start();
      printed = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(process.waitFor(180, TimeUnit.SECONDS)).as(printed).isTrue();
      assertThat(process.exitValue()).as(printed).isZero();
      // The key was sent: the server answers only requests that carry it.
      assertThat(server.totalRequests()).isEqualTo(2);
    }
    assertThat(printed).as("stdout and stderr").contains("gen-qa").doesNotContain(secret);

    Warehouse w = new Warehouse(SparkTestSession.get(), warehouse);
    assertThat(w.tables()).containsExactlyInAnyOrderElementsOf(TABLES);
    for (String table : TABLES) {
      long rows = w.read(table).count();
      long leaks =
          w.read(table)
              .toJSON()
              .filter((FilterFunction<String>) line -> line.contains(secret))
              .count();
      if (FILLED.contains(table)) {
        assertThat(rows).as(table + " rows").isPositive();
      }
      assertThat(leaks).as(table + " rows holding the key").isZero();
    }
    assertThat(w.read("runs").filter("job = 'gen-qa'").head().<String>getAs("config_json"))
        .contains("\"api_key_env\":\"INFUSE_TEST_API_KEY\"");
    List<Path> files;
    try (Stream<Path> walk = Files.walk(Path.of(warehouse))) {
      files = walk.filter(Files::isRegularFile).toList();
    }
    assertThat(files).as("warehouse files").hasSizeGreaterThan(TABLES.size());
    for (Path file : files) {
      // ISO-8859-1 maps every byte to one char, so an ASCII key is found wherever its bytes are.
      assertThat(new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1))
          .as(file.toString())
          .doesNotContain(secret);
    }
  }
}
