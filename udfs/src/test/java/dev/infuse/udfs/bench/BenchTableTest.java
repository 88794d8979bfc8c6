package dev.infuse.udfs.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BenchTableTest {
  private static final BenchResult PASSES =
      new BenchResult(
          "tokenize + pack, 20k texts",
          "8,412 texts/s",
          "raw batchEncode 10,233 texts/s",
          0.822,
          "ratio",
          true,
          0.80,
          "medians of 5");
  private static final BenchResult FAILS =
      new BenchResult("ingest, one question", "12.30 s", "", 12.3, "s", false, 10, "");

  @Test
  void rendersOneAlignedRowPerResultAndTheCount() {
    String table = BenchTable.render(List.of(PASSES, FAILS), List.of());

    assertThat(table.lines().toList())
        .containsExactly(
            "work                       | Infuse        | reference                      | value     "
                + " | goal         | pass/FAIL",
            "---------------------------|---------------|--------------------------------|-----------"
                + "-|--------------|----------",
            "tokenize + pack, 20k texts | 8,412 texts/s | raw batchEncode 10,233 texts/s | 0.82 ratio"
                + " | ≥ 0.80 ratio | pass",
            "ingest, one question       | 12.30 s       |                                | 12.30 s   "
                + " | ≤ 10.00 s    | FAIL",
            "1 pass, 1 FAIL, 0 crashed");
  }

  @Test
  void namesTheClassesThatCrashed() {
    String table =
        BenchTable.render(List.of(PASSES), List.of("dev.infuse.tests.SomeBenchmarkTest"));

    assertThat(table)
        .endsWith("1 pass, 0 FAIL, 1 crashed\ncrashed: dev.infuse.tests.SomeBenchmarkTest\n");
  }

  @Test
  void saysSoWhenNoBenchmarkRan() {
    assertThat(BenchTable.render(List.of(), List.of()))
        .endsWith(
            "0 pass, 0 FAIL, 0 crashed\nno benchmark ran (does --only match a benchmark class?)\n");
  }

  @Test
  void benchJsonHoldsTheMachineTheShaAndEveryResultWithItsVerdict(@TempDir Path dir)
      throws Exception {
    Path file = dir.resolve("bench/bench.json");
    BenchTable.writeJson(file, List.of(PASSES, FAILS), List.of("dev.X"), "abc123");

    JsonNode json = new ObjectMapper().readTree(Files.readString(file));
    assertThat(json.get("machine").get("cores").asInt()).isPositive();
    assertThat(json.get("machine").get("java").asText()).startsWith("17");
    assertThat(json.get("machine").get("os").asText()).isNotBlank();
    assertThat(json.get("git_sha").asText()).isEqualTo("abc123");
    assertThat(json.get("results")).hasSize(2);
    assertThat(json.get("results").get(0).get("work").asText())
        .isEqualTo("tokenize + pack, 20k texts");
    assertThat(json.get("results").get(0).get("pass").asBoolean()).isTrue();
    assertThat(json.get("results").get(1).get("pass").asBoolean()).isFalse();
    assertThat(json.get("results").get(1).get("goalText").asText()).isEqualTo("≤ 10.00 s");
    assertThat(json.get("passed").asInt()).isEqualTo(1);
    assertThat(json.get("failed").asInt()).isEqualTo(1);
    assertThat(json.get("crashed").get(0).asText()).isEqualTo("dev.X");
  }

  @Test
  void resultsRecordedToAFileReadBackEqual(@TempDir Path dir) {
    Path file = dir.resolve("results.jsonl");
    String before = System.getProperty(BenchResults.RESULTS_PROPERTY);
    System.setProperty(BenchResults.RESULTS_PROPERTY, file.toString());
    try {
      BenchResults.record(PASSES);
      BenchResults.record(FAILS);
    } finally {
      if (before == null) {
        System.clearProperty(BenchResults.RESULTS_PROPERTY);
      } else {
        System.setProperty(BenchResults.RESULTS_PROPERTY, before);
      }
    }

    assertThat(BenchResults.read(file)).containsExactly(PASSES, FAILS);
  }

  @Test
  void aClassCrashedWhenItFailedErroredOrNeverFinished() {
    List<String> log =
        List.of(
            "[INFO] Running dev.infuse.A",
            "[INFO] Running dev.infuse.B",
            "[INFO] Tests run: 1, Failures: 0, Errors: 0, Skipped: 0, Time elapsed: 3.1 s -- in"
                + " dev.infuse.A",
            "[INFO] Running dev.infuse.C",
            "[ERROR] Tests run: 1, Failures: 0, Errors: 1, Skipped: 0, Time elapsed: 2.0 s <<<"
                + " FAILURE! -- in dev.infuse.C",
            "[INFO] Running dev.infuse.D",
            "[WARNING] Tests run: 1, Failures: 0, Errors: 0, Skipped: 1, Time elapsed: 0.1 s -- in"
                + " dev.infuse.D",
            "[ERROR] ExecutionException The forked VM terminated without properly saying goodbye.");

    assertThat(MavenTestLog.crashed(log)).containsExactly("dev.infuse.B", "dev.infuse.C");
  }
}
