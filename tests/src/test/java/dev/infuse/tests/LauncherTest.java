package dev.infuse.tests;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.infuse.jobs.SparkTestSession;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@code bin/infuse} as a user runs it: a separate JVM started from the shaded jar plus Spark's
 * classpath, with no Spark installation. stdout must carry only results, so scripts can parse it.
 */
class LauncherTest {
  @Test
  void helpListsTheJobs() throws Exception {
    Process process = run("--help");
    String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(120, TimeUnit.SECONDS)).isTrue();
    assertThat(process.exitValue()).isZero();
    assertThat(out).contains("ingest", "chunk", "sql", "validate", "demo");
  }

  @Test
  void sqlJsonOnStdoutIsOnlyJsonLines() throws Exception {
    Process process =
        run(
            "sql",
            "--warehouse",
            DemoWarehouse.get(),
            "--json",
            "SELECT doc_id, count(*) AS chunks FROM chunks GROUP BY doc_id ORDER BY doc_id");
    String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(180, TimeUnit.SECONDS)).isTrue();
    assertThat(process.exitValue()).as(out).isZero();
    List<String> lines = out.lines().toList();
    assertThat(lines).hasSize(5);
    ObjectMapper json = new ObjectMapper();
    for (String line : lines) {
      JsonNode row = json.readTree(line);
      assertThat(row.get("doc_id").asText()).startsWith("quality:");
      assertThat(row.get("chunks").asLong()).isPositive();
    }
  }

  @Test
  void unknownJobIsAUsageError() throws Exception {
    Process process = run("ingets");
    process.getInputStream().readAllBytes();
    assertThat(process.waitFor(120, TimeUnit.SECONDS)).isTrue();
    assertThat(process.exitValue()).isEqualTo(2);
  }

  private static Process run(String... args) throws IOException {
    Path launcher = SparkTestSession.repoRoot().resolve("bin/infuse");
    List<String> command = new ArrayList<>(List.of(launcher.toString()));
    command.addAll(List.of(args));
    ProcessBuilder builder =
        new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD);
    builder.environment().put("INFUSE_JAVA_OPTS", "-Xmx1g");
    return builder.start();
  }
}
