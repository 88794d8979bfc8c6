package dev.infuse.jobs.behavior;

import static org.assertj.core.api.Assertions.assertThat;

import dev.infuse.jobs.SparkTestSession;
import dev.infuse.jobs.SparkTestSession.CliResult;
import java.nio.file.Path;
import java.util.Map;

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
}
