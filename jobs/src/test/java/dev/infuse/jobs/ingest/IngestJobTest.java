package dev.infuse.jobs.ingest;

import static org.apache.spark.sql.functions.col;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.infuse.jobs.QualitySample;
import dev.infuse.jobs.SparkTestSession;
import dev.infuse.jobs.SparkTestSession.CliResult;
import dev.infuse.jobs.io.Warehouse;
import dev.infuse.udfs.ingest.BenchmarkReaders;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.ToIntFunction;
import java.util.stream.Stream;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVParser;
import org.apache.commons.csv.CSVRecord;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.assertj.core.api.SoftAssertions;
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
    String[] ingestMixed = {
      "ingest",
      "--format",
      "quality",
      "--input",
      input.toString(),
      "--warehouse",
      warehouse,
      "--max-bad-fraction",
      "1"
    };
    CliResult result = SparkTestSession.cli(ingestMixed);
    assertThat(result.code()).as(result.toString()).isZero();

    Warehouse w = new Warehouse(spark, warehouse);
    Row run = w.read("runs").head();
    // Read: 17 (line 1: the article and its 16 questions) + 1 (line 2: truncated) + 12 (line 3:
    // the article and its 11 questions) + 9 (line 4: the empty article and its 8 questions) + 1
    // (line 5: not UTF-8) + 17 (line 6: line 1's article and 16 questions that differ) = 57.
    // Written or collapsed: 17 + 11 (line 3 but the question out of range) + 1 (line 6's article,
    // the same as line 1's) = 29. Quarantined: 1 + 1 + 9 + 1 + 16 = 28.
    assertThat(run.<Long>getAs("input_count")).isEqualTo(57L);
    assertThat(run.<Long>getAs("output_count")).isEqualTo(29L);
    assertThat(run.<Long>getAs("quarantined_count")).isEqualTo(28L);
    assertThat(w.read("quarantine").count()).isEqualTo(28);
    assertThat(w.read("documents").count()).isEqualTo(2);
    assertThat(w.read("questions").count()).isEqualTo(26);

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

    // The same input again: the same 28 records are quarantined, and quarantine gains nothing.
    Map<String, byte[]> before = snapshot(Path.of(warehouse), List.of("quarantine"));
    CliResult again = SparkTestSession.cli(ingestMixed);
    assertThat(again.code()).as(again.toString()).isZero();
    assertThat(w.read("quarantine").count()).isEqualTo(28);
    Row rerun = w.read("runs").orderBy(col("started_at").desc()).head();
    assertThat(rerun.<String>getAs("run_id")).isNotEqualTo(run.<String>getAs("run_id"));
    assertThat(rerun.<Long>getAs("quarantined_count")).isEqualTo(28L);
    assertThat(rerun.<String, Long>getJavaMap(rerun.fieldIndex("counts")))
        .containsEntry("quarantine.inserted", 0L);
    Map<String, byte[]> after = snapshot(Path.of(warehouse), List.of("quarantine"));
    assertThat(after.keySet()).isEqualTo(before.keySet());
    before.forEach((name, bytes) -> assertThat(after.get(name)).as(name).isEqualTo(bytes));
  }

  /**
   * Every reader, on a few records of its real data (or its test fixture): the run reads exactly
   * the items its input holds, counted here without the reader: Jackson over each JSON line or the
   * JSON object, commons-csv over the whole CSV file. A reader that skipped a record would
   * reconcile (read = written + quarantined) and still fail here.
   */
  @Test
  void everyReaderReadsEveryRecordOfItsInput() throws IOException {
    Path dir = SparkTestSession.tempDir("every-reader");
    Map<String, Fixture> fixtures = new TreeMap<>();
    // QuALITY: the whole sample, whose ingest every QuALITY test class starts from.
    fixtures.put("quality", jsonItems(QualitySample.file(), r -> 1 + r.get("questions").size()));
    fixtures.put(
        "financebench",
        jsonLines(
            dir,
            "financebench/financebench_open_source.jsonl",
            4,
            r -> r.get("evidence").size() + 1));
    fixtures.put("gsm8k", jsonLines(dir, "gsm8k/train.jsonl", 4, r -> 1));
    fixtures.put(
        "medqa", jsonLines(dir, "medqa_usmle/phrases_no_exclude_test.shared.jsonl", 4, r -> 1));
    fixtures.put(
        "agentclinic",
        jsonLines(dir, "agentclinic_medqa/agentclinic_medqa_extended.shared.jsonl", 4, r -> 1));
    // ANLI: a premise document and a statement question per record; ACI-BENCH: a dialogue and a
    // note per record; MEDEC: one note per record.
    fixtures.put("anli", csvRecords(dir, "anli/ANLI_analysis_r1_dev.csv", 4, 2));
    fixtures.put("aci-bench", csvRecords(dir, "aci_bench/train.csv", 2, 2));
    fixtures.put(
        "medec",
        csvRecords(
            dir, "medec_ms/MEDEC-MS-TestSet-with-GroundTruth-and-ErrorType.shared.csv", 4, 1));
    fixtures.put("longhealth", longHealth(dir));
    assertThat(fixtures.keySet()).containsExactlyInAnyOrderElementsOf(BenchmarkReaders.formats());

    SoftAssertions softly = new SoftAssertions();
    fixtures.forEach(
        (format, fixture) -> {
          String warehouse;
          if (format.equals("quality")) {
            warehouse = QualitySample.ingestedCopy("every-reader-quality");
          } else {
            warehouse = SparkTestSession.tempDir("wh-" + format).toString();
            CliResult result =
                SparkTestSession.cli(
                    "ingest",
                    "--format",
                    format,
                    "--input",
                    fixture.file().toString(),
                    "--warehouse",
                    warehouse);
            softly.assertThat(result.code()).as(format + ": " + result).isZero();
          }
          Row run = new Warehouse(spark, warehouse).read("runs").head();
          softly
              .assertThat(run.<Long>getAs("input_count"))
              .as("%s: items read from %d records", format, fixture.records())
              .isEqualTo(fixture.items());
          softly
              .assertThat(run.<Long>getAs("output_count"))
              .as("%s: items written or collapsed", format)
              .isEqualTo(fixture.items());
          softly.assertThat(run.<Long>getAs("quarantined_count")).as(format).isZero();
        });
    softly.assertAll();
  }

  /**
   * An input file of one format, with its record count and the items (documents, questions) they
   * hold, both counted from the file here.
   */
  private record Fixture(Path file, long records, long items) {}

  /**
   * The first {@code n} lines of a shared JSON Lines file, each line's items counted by Jackson.
   */
  private static Fixture jsonLines(
      Path dir, String shared, int n, ToIntFunction<JsonNode> itemsPerRecord) throws IOException {
    Path file = target(dir, shared);
    List<String> lines = Files.readAllLines(SparkTestSession.benchmark(shared)).subList(0, n);
    Files.write(file, (String.join("\n", lines) + "\n").getBytes(StandardCharsets.UTF_8));
    Fixture fixture = jsonItems(file, itemsPerRecord);
    assertThat(fixture.records()).as(shared).isEqualTo(n);
    return fixture;
  }

  /** A JSON Lines file: its non-blank lines are the records, each parsed by Jackson. */
  private static Fixture jsonItems(Path file, ToIntFunction<JsonNode> itemsPerRecord)
      throws IOException {
    long records = 0;
    long items = 0;
    for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
      if (!line.isBlank()) {
        records++;
        items += itemsPerRecord.applyAsInt(JSON.readTree(line));
      }
    }
    return new Fixture(file, records, items);
  }

  /**
   * The header and first {@code n} records of a shared CSV file, byte for byte (records may span
   * lines), counted by commons-csv over the whole new file.
   */
  private static Fixture csvRecords(Path dir, String shared, int n, int itemsPerRecord)
      throws IOException {
    String text = Files.readString(SparkTestSession.benchmark(shared), StandardCharsets.UTF_8);
    long end = text.length();
    try (CSVParser parser = CSVParser.parse(text, CSVFormat.DEFAULT)) {
      int index = 0;
      for (CSVRecord record : parser) {
        if (index++ == n + 1) {
          end = record.getCharacterPosition();
          break;
        }
      }
    }
    Path file = target(dir, shared);
    Files.writeString(file, text.substring(0, (int) end), StandardCharsets.UTF_8);
    long records;
    try (CSVParser parser =
        CSVParser.parse(
            file,
            StandardCharsets.UTF_8,
            CSVFormat.DEFAULT.builder().setHeader().setSkipHeaderRecord(true).build())) {
      records = parser.stream().count();
    }
    assertThat(records).as(shared).isEqualTo(n);
    return new Fixture(file, records, records * itemsPerRecord);
  }

  /** The LongHealth reader's test fixture: each patient is a document plus its questions. */
  private static Fixture longHealth(Path dir) throws IOException {
    Path source =
        SparkTestSession.repoRoot()
            .resolve("udfs/src/test/resources/ingest/longhealth/benchmark_v5_fixture.json");
    Path file = Files.createDirectories(dir.resolve("longhealth")).resolve(source.getFileName());
    Files.copy(source, file);
    long records = 0;
    long items = 0;
    for (Iterator<Map.Entry<String, JsonNode>> it = JSON.readTree(file.toFile()).fields();
        it.hasNext(); ) {
      Map.Entry<String, JsonNode> entry = it.next();
      if (entry.getKey().startsWith("patient_")) {
        records++;
        items += 1 + entry.getValue().get("questions").size();
      }
    }
    assertThat(records).isEqualTo(2);
    return new Fixture(file, records, items);
  }

  /** Where a part of a shared benchmark file goes: under its folder and name, as readers expect. */
  private static Path target(Path dir, String shared) throws IOException {
    Path file = dir.resolve(shared);
    Files.createDirectories(file.getParent());
    return file;
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

  /**
   * MEDEC's test CSV pads its notes with all-empty rows: they are reported as blank rows, and are
   * neither items nor bad records, so even a zero bad-record ceiling passes.
   */
  @Test
  void blankCsvRowsAreReportedAndNotCountedAsBadRecords() throws IOException {
    Path input = SparkTestSession.tempDir("blank").resolve("medec_ms/MEDEC-MS-TestSet.csv");
    Files.createDirectories(input.getParent());
    Files.writeString(
        input,
        "Text ID,Text,Sentences,Error Flag,Error Type,Error Sentence ID,Error Sentence,"
            + "Corrected Sentence,Corrected Text\n"
            + "ms-test-0,A note.,0 A note.,0,,-1,NA,NA,NA\n"
            + "ms-test-1,Another note.,0 Another note.,0,,-1,NA,NA,NA\n"
            + ",,,,,,,,\n,,,,,,,,\n,,,,,,,,\n");
    String warehouse = SparkTestSession.tempDir("wh-blank").toString();
    CliResult result =
        SparkTestSession.cli(
            "ingest",
            "--format",
            "medec",
            "--input",
            input.toString(),
            "--warehouse",
            warehouse,
            "--max-bad-fraction",
            "0");
    assertThat(result.code()).as(result.toString()).isZero();
    assertThat(result.out()).contains("blank rows skipped: 3");
    Warehouse w = new Warehouse(spark, warehouse);
    assertThat(w.read("documents").count()).isEqualTo(2);
    assertThat(w.read("quarantine").count()).isZero();
    Row run = w.read("runs").head();
    assertThat(run.<Long>getAs("input_count")).isEqualTo(2L);
    assertThat(run.<Long>getAs("quarantined_count")).isZero();
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
