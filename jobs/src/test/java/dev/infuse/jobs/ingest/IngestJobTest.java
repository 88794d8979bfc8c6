package dev.infuse.jobs.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.infuse.jobs.QualitySample;
import dev.infuse.jobs.SparkTestSession;
import dev.infuse.jobs.SparkTestSession.CliResult;
import dev.infuse.jobs.io.Warehouse;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;

class IngestJobTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private final SparkSession spark = SparkTestSession.get();
  private final Path sample =
      SparkTestSession.repoRoot().resolve("samples/quality/quality_dev_sample.jsonl");

  @Test
  void qualitySampleLandsWithEveryItemAccountedFor() {
    // The ingest of the sample every QuALITY test class of the JVM starts from (exit 0 checked).
    String warehouse = QualitySample.ingestedCopy("ingest");

    Warehouse w = new Warehouse(spark, warehouse);
    assertThat(w.read("documents").count()).isEqualTo(5);
    assertThat(w.read("questions").count()).isEqualTo(62);
    assertThat(w.read("quarantine").count()).isZero();
    Row run = w.read("runs").head();
    assertThat(run.<String>getAs("status")).isEqualTo("succeeded");
    assertThat(run.<Long>getAs("input_count")).isEqualTo(67L);
    assertThat(run.<Long>getAs("output_count")).isEqualTo(67L);
    assertThat(run.<Long>getAs("quarantined_count")).isZero();
    Row question =
        w.read("questions").filter("question_id = 'quality:leval-quality-00_set1_1'").head();
    assertThat(question.<String>getAs("doc_id")).isEqualTo("quality:leval-quality-00");
    assertThat(question.<String>getAs("answer_type")).isEqualTo("mcq");
  }

  @Test
  void rerunLeavesEveryDataTableByteForByteTheSame() throws IOException {
    // A copy of the shared ingest of the sample: the first run; this test runs the same again.
    String warehouse = QualitySample.ingestedCopy("ingest-rerun");
    String[] args = {
      "ingest",
      "--format",
      "quality",
      "--input",
      QualitySample.file().toString(),
      "--warehouse",
      warehouse
    };
    Map<String, byte[]> before =
        snapshot(Path.of(warehouse), List.of("documents", "questions", "quarantine"));

    CliResult again = SparkTestSession.cli(args);
    assertThat(again.code()).as(again.toString()).isZero();
    assertThat(again.out())
        .contains("documents: unchanged (no commit)")
        .contains("questions: unchanged (no commit)");
    Map<String, byte[]> after =
        snapshot(Path.of(warehouse), List.of("documents", "questions", "quarantine"));
    assertThat(after.keySet()).isEqualTo(before.keySet());
    before.forEach((file, bytes) -> assertThat(after.get(file)).as(file).isEqualTo(bytes));
    assertThat(new Warehouse(spark, warehouse).read("runs").count()).isEqualTo(2);
  }

  @Test
  void mixedFileEndsWithGoodRowsWrittenAndEveryBadOneQuarantined() throws IOException {
    List<String> lines = Files.readAllLines(sample, StandardCharsets.UTF_8);
    ByteArrayOutputStream file = new ByteArrayOutputStream();
    writeLine(file, lines.get(0)); // good: 1 doc + 16 questions
    writeLine(file, lines.get(1).substring(0, 400)); // truncated JSON
    writeLine(
        file,
        lines
            .get(2)
            .replaceFirst("\"gold_label\": \\d", "\"gold_label\": 9")); // one question out of range
    ObjectNode emptyArticle = (ObjectNode) JSON.readTree(lines.get(3));
    emptyArticle.put("article", "   ");
    writeLine(file, JSON.writeValueAsString(emptyArticle)); // empty article
    file.write(
        "{\"article_id\": \"x\u00ff\"}".getBytes(StandardCharsets.ISO_8859_1)); // invalid UTF-8
    file.write('\n');
    writeLine(
        file,
        lines
            .get(0)
            .replace("\"question\": \"", "\"question\": \"Changed: ")); // conflicting duplicates
    Path input = SparkTestSession.tempDir("mixed").resolve("mixed_dev.jsonl");
    Files.write(input, file.toByteArray());

    String warehouse = SparkTestSession.tempDir("wh").toString();
    CliResult result =
        SparkTestSession.cli(
            "ingest",
            "--format",
            "quality",
            "--input",
            input.toString(),
            "--warehouse",
            warehouse,
            "--max-bad-fraction",
            "1");
    assertThat(result.code()).as(result.toString()).isZero();

    Warehouse w = new Warehouse(spark, warehouse);
    Row run = w.read("runs").head();
    long read = run.getAs("input_count");
    long written = run.getAs("output_count");
    long quarantined = run.getAs("quarantined_count");
    assertThat(read).isEqualTo(written + quarantined);
    assertThat(w.read("quarantine").count()).isEqualTo(quarantined);

    List<String> reasons =
        w.read("quarantine")
            .selectExpr("concat(location, ': ', reason)")
            .as(org.apache.spark.sql.Encoders.STRING())
            .collectAsList();
    assertThat(reasons).anyMatch(r -> r.startsWith("line 2: ") && r.toLowerCase().contains("json"));
    assertThat(reasons).anyMatch(r -> r.contains("gold_label") && r.contains("9"));
    assertThat(reasons).anyMatch(r -> r.startsWith("line 4") && r.contains("empty article"));
    assertThat(reasons).anyMatch(r -> r.startsWith("line 5") && r.contains("UTF-8"));
    assertThat(reasons)
        .anyMatch(r -> r.contains("duplicate question_id") && r.contains("content differs"));
    // The good article and its questions landed; the out-of-range question's siblings did too.
    assertThat(w.read("documents").filter("doc_id = 'quality:leval-quality-00'").count())
        .isEqualTo(1);
    assertThat(w.read("questions").filter("doc_id = 'quality:leval-quality-00'").count())
        .isEqualTo(16);
    assertThat(w.read("questions").filter("doc_id = 'quality:leval-quality-02'").count())
        .isEqualTo(10);
    Row invalidUtf8 = w.read("quarantine").filter("location = 'line 5'").head();
    assertThat((byte[]) invalidUtf8.getAs("payload_bytes")).contains((byte) 0xff);
  }

  @Test
  void tooManyBadRecordsFailsTheRunAfterQuarantiningThem() throws IOException {
    Path input = SparkTestSession.tempDir("bad").resolve("bad_dev.jsonl");
    Files.writeString(input, Files.readAllLines(sample).get(0) + "\n{\"truncated\n");
    String warehouse = SparkTestSession.tempDir("wh").toString();
    CliResult result =
        SparkTestSession.cli(
            "ingest",
            "--format",
            "quality",
            "--input",
            input.toString(),
            "--warehouse",
            warehouse,
            "--max-bad-fraction",
            "0.01");
    assertThat(result.code()).as(result.toString()).isEqualTo(1);
    assertThat(result.err()).contains("above ingest.max_bad_fraction 0.01");
    Warehouse w = new Warehouse(spark, warehouse);
    assertThat(w.read("quarantine").count()).isEqualTo(1);
    assertThat(w.read("questions").count()).isEqualTo(16);
    Row run = w.read("runs").head();
    assertThat(run.<String>getAs("status")).isEqualTo("failed");
    assertThat(run.<Long>getAs("input_count")).isEqualTo(18L);
  }

  @Test
  void unknownFormatSuggestsTheNearestOne() {
    CliResult result =
        SparkTestSession.cli(
            "ingest",
            "--format",
            "qualty",
            "--input",
            sample.toString(),
            "--warehouse",
            SparkTestSession.tempDir("wh").toString());
    assertThat(result.code()).isNotZero();
    assertThat(result.err()).contains("did you mean 'quality'");
  }

  private static void writeLine(ByteArrayOutputStream out, String line) throws IOException {
    out.write(line.getBytes(StandardCharsets.UTF_8));
    out.write('\n');
  }

  /** Every file of the given tables, path relative to the warehouse, with its bytes. */
  private static Map<String, byte[]> snapshot(Path warehouse, List<String> tables)
      throws IOException {
    Map<String, byte[]> files = new TreeMap<>();
    for (String table : tables) {
      try (Stream<Path> walk = Files.walk(warehouse.resolve(table))) {
        for (Path file : walk.filter(Files::isRegularFile).toList()) {
          files.put(warehouse.relativize(file).toString(), Files.readAllBytes(file));
        }
      }
    }
    return files;
  }
}
