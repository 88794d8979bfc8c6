package dev.infuse.tests;

import static org.assertj.core.api.Assertions.assertThat;

import dev.infuse.jobs.SparkTestSession;
import dev.infuse.jobs.SparkTestSession.CliResult;
import dev.infuse.jobs.io.Warehouse;
import java.util.stream.Stream;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every reader, through the real ingest job, on the real public data in {@code
 * ../shared/benchmarks}: exact row counts from the datasets' READMEs, nothing quarantined, and
 * counts that reconcile. Directories are given whole, so companion files (metadata, licenses) must
 * be skipped by the reader.
 */
class SharedBenchmarksIngestTest {
  private final SparkSession spark = SparkTestSession.get();

  static Stream<Arguments> datasets() {
    return Stream.of(
        // format, input under shared/benchmarks, distinct documents, questions
        Arguments.of("quality", "quality", 5, 62),
        Arguments.of("financebench", "financebench", 168, 150),
        Arguments.of("gsm8k", "gsm8k", 0, 7473),
        Arguments.of("anli", "anli", 1716, 2000),
        Arguments.of("medqa", "medqa_usmle", 0, 411),
        Arguments.of("medec", "medec_ms", 399, 0),
        Arguments.of("aci-bench", "aci_bench", 134, 0),
        Arguments.of("agentclinic", "agentclinic_medqa", 60, 0));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("datasets")
  void readsTheRealFilesWithNothingLost(
      String format, String folder, long documents, long questions) {
    String warehouse = SparkTestSession.tempDir("shared-" + format).toString();
    CliResult result =
        SparkTestSession.cli(
            "ingest",
            "--format",
            format,
            "--input",
            SparkTestSession.benchmark(folder).toString(),
            "--warehouse",
            warehouse);
    assertThat(result.code()).as(result.toString()).isZero();

    Warehouse w = new Warehouse(spark, warehouse);
    assertThat(w.read("documents").count()).isEqualTo(documents);
    assertThat(w.read("questions").count()).isEqualTo(questions);
    assertThat(w.read("quarantine").count()).isZero();
    Row run = w.read("runs").head();
    assertThat(run.<String>getAs("status")).isEqualTo("succeeded");
    assertThat(run.<Long>getAs("input_count"))
        .isEqualTo(run.<Long>getAs("output_count") + run.<Long>getAs("quarantined_count"));
    if (questions > 0) {
      // Every question is answerable as declared: choice questions carry an in-range gold.
      assertThat(
              w.read("questions")
                  .filter("answer_type IN ('mcq', 'label') AND gold_index IS NULL")
                  .count())
          .isZero();
    }
  }
}
