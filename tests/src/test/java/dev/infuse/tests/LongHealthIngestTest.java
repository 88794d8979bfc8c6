package dev.infuse.tests;

import static org.assertj.core.api.Assertions.assertThat;

import dev.infuse.jobs.SparkTestSession;
import dev.infuse.jobs.SparkTestSession.CliResult;
import dev.infuse.jobs.io.Warehouse;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;

/**
 * LongHealth's data is not available here (see shared/benchmarks/longhealth/README.md), so the
 * ingest job reads the {@code benchmark_v5.json}-shaped fixture the reader's unit tests use.
 */
class LongHealthIngestTest {
  private final SparkSession spark = SparkTestSession.get();

  @Test
  void patientsBecomeDocumentsAndTheirQuestionsPointAtThem() {
    String fixture =
        SparkTestSession.repoRoot()
            .resolve("udfs/src/test/resources/ingest/longhealth/benchmark_v5_fixture.json")
            .toString();
    String warehouse = SparkTestSession.tempDir("longhealth").toString();
    CliResult result =
        SparkTestSession.cli(
            "ingest", "--format", "longhealth", "--input", fixture, "--warehouse", warehouse);
    assertThat(result.code()).as(result.toString()).isZero();

    Warehouse w = new Warehouse(spark, warehouse);
    assertThat(w.read("documents").count()).isEqualTo(2);
    assertThat(w.read("questions").count()).isEqualTo(5);
    assertThat(w.read("questions").filter("doc_id NOT LIKE 'longhealth:patient_%'").count())
        .isZero();
    Row patient = w.read("documents").orderBy("doc_id").head();
    assertThat(patient.<scala.collection.Map<String, String>>getAs("meta").get("eval_only").get())
        .isEqualTo("true");
  }
}
