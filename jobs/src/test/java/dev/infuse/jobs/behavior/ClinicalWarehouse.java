package dev.infuse.jobs.behavior;

import static org.assertj.core.api.Assertions.assertThat;

import dev.infuse.jobs.SparkTestSession;
import dev.infuse.jobs.SparkTestSession.CliResult;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Map;
import java.util.stream.Stream;

/**
 * A warehouse holding the clinical samples shipped for the demo (samples/clinical) ingested, made
 * once per test JVM: the behaviour tests share it and each writes under its own keys or paths.
 */
final class ClinicalWarehouse {
  private static final Path SAMPLES = SparkTestSession.repoRoot().resolve("samples/clinical");
  private static String warehouse;

  private ClinicalWarehouse() {}

  static synchronized String get() {
    if (warehouse == null) {
      String dir = SparkTestSession.tempDir("clinical").toString();
      Map<String, String> inputs =
          Map.of(
              "medec", "medec_ms_sample.csv",
              "agentclinic", "agentclinic_medqa_sample.jsonl",
              "aci-bench", "aci_bench_sample.csv",
              "medqa", "medqa_usmle_sample.jsonl");
      for (Map.Entry<String, String> input : inputs.entrySet()) {
        CliResult ingest =
            SparkTestSession.cli(
                "ingest",
                "--warehouse",
                dir,
                "--format",
                input.getKey(),
                "--input",
                SAMPLES.resolve(input.getValue()).toString());
        assertThat(ingest.code()).as(ingest.toString()).isZero();
        if (input.getKey().equals("medec")) {
          // The sample ends with two all-empty rows, as MEDEC's official test CSV does.
          assertThat(ingest.out()).contains("blank rows skipped: 2");
        }
      }
      warehouse = dir;
    }
    return warehouse;
  }

  /**
   * A new warehouse holding only the ingested tables (documents, questions) of the shared one, for
   * a test that builds its own behaviour tables and counts every write.
   */
  static String ingestedOnly(String prefix) {
    Path copy = Path.of(SparkTestSession.copyOf(get(), prefix));
    try (Stream<Path> tables = Files.list(copy)) {
      for (Path table : tables.toList()) {
        String name = table.getFileName().toString();
        if (!name.equals("documents") && !name.equals("questions")) {
          deleteTree(table);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return copy.toString();
  }

  private static void deleteTree(Path root) throws IOException {
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(path);
      }
    }
  }
}
