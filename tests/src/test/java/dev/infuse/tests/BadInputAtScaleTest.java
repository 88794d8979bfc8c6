package dev.infuse.tests;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.countDistinct;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
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
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.ToIntFunction;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVParser;
import org.apache.commons.csv.CSVRecord;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Thousands of malformed records of every kind, through every reader's ingest: each good record's
 * items are written, each malformed record is in quarantine at its own location with a reason, and
 * read = written + quarantined. One large file also runs in a JVM with a small heap.
 *
 * <p>A reader gets its file whole, in one task (a JSON Lines record may not be split from its
 * neighbours' bytes without reading them), so the heap bounds the largest single file, not the
 * corpus: a 100 MB file ran out of a 640 MB heap. The large file here is many records, not big
 * ones.
 */
@Tag("production")
class BadInputAtScaleTest {
  /** Malformed records per reader. */
  private static final int BAD = 2_000;

  private static final ObjectMapper JSON = new ObjectMapper();
  private final SparkSession spark = SparkTestSession.get();

  /** A generated input: good records first, then the malformed ones, and what must come of it. */
  private record Corpus(Path file, long goodItems, int malformed) {}

  @Test
  void everyReaderQuarantinesEveryMalformedRecordAndWritesEveryGoodOne() throws IOException {
    Path dir = SparkTestSession.tempDir("bad-at-scale");
    Map<String, Corpus> corpora = new TreeMap<>();
    corpora.put(
        "quality", jsonLines(dir, QualitySample.file(), 2, r -> 1 + r.get("questions").size()));
    corpora.put(
        "financebench",
        jsonLines(
            dir,
            shared("financebench/financebench_open_source.jsonl"),
            3,
            r -> r.get("evidence").size() + 1));
    corpora.put("gsm8k", jsonLines(dir, shared("gsm8k/train.jsonl"), 3, r -> 1));
    corpora.put(
        "medqa",
        jsonLines(dir, shared("medqa_usmle/phrases_no_exclude_test.shared.jsonl"), 3, r -> 1));
    corpora.put(
        "agentclinic",
        jsonLines(
            dir, shared("agentclinic_medqa/agentclinic_medqa_extended.shared.jsonl"), 3, r -> 1));
    corpora.put("anli", csv(dir, shared("anli/ANLI_analysis_r1_dev.csv"), 3, 2));
    corpora.put("aci-bench", csv(dir, shared("aci_bench/train.csv"), 2, 2));
    corpora.put(
        "medec",
        csv(
            dir,
            shared("medec_ms/MEDEC-MS-TestSet-with-GroundTruth-and-ErrorType.shared.csv"),
            3,
            1));
    corpora.put("longhealth", longHealth(dir));
    assertThat(corpora.keySet()).containsExactlyInAnyOrderElementsOf(BenchmarkReaders.formats());

    SoftAssertions softly = new SoftAssertions();
    corpora.forEach(
        (format, corpus) -> {
          String warehouse = SparkTestSession.tempDir("bad-" + format).toString();
          CliResult result =
              SparkTestSession.cli(ingest(format, corpus, warehouse).toArray(String[]::new));
          softly.assertThat(result.code()).as(format + ": " + result).isZero();
          Warehouse tables = new Warehouse(spark, warehouse);
          Row run = tables.read("runs").head();
          long read = run.<Long>getAs("input_count");
          long written = run.<Long>getAs("output_count");
          long quarantined = run.<Long>getAs("quarantined_count");
          System.out.printf(
              "bad input at scale: %-12s read %6d = written %4d + quarantined %6d (%d malformed"
                  + " records, %d good items)%n",
              format, read, written, quarantined, corpus.malformed(), corpus.goodItems());
          softly
              .assertThat(read)
              .as(format + ": read = written + quarantined")
              .isEqualTo(written + quarantined);
          softly.assertThat(written).as(format + ": every good item").isEqualTo(corpus.goodItems());
          Row quarantine =
              tables
                  .read("quarantine")
                  .filter(col("run_id").equalTo(run.<String>getAs("run_id")))
                  .agg(
                      countDistinct(col("location")),
                      org.apache.spark.sql.functions.sum(
                          col("reason").isNull().or(col("reason").equalTo("")).cast("int")))
                  .head();
          softly
              .assertThat(quarantine.getLong(0))
              .as(format + ": quarantined locations, one per malformed record")
              .isEqualTo(corpus.malformed());
          softly
              .assertThat(quarantine.isNullAt(1) ? 0 : quarantine.getLong(1))
              .as(format + ": rows without a reason")
              .isZero();
        });
    softly.assertAll();
  }

  @Test
  void aLargeMostlyMalformedFileIngestsInAJvmWithASmallHeap() throws Exception {
    Path dir = SparkTestSession.tempDir("bad-large");
    int malformed = 50_000;
    Corpus corpus =
        jsonLines(dir, QualitySample.file(), 2, r -> 1 + r.get("questions").size(), malformed);
    String warehouse = dir.resolve("warehouse").toString();
    List<String> command = new ArrayList<>();
    command.add(SparkTestSession.repoRoot().resolve("bin/infuse").toString());
    command.addAll(ingest("quality", corpus, warehouse));
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
    // Spark's floor is 1.5 x its 300 MB reserve; 640 MB leaves under 200 MB for the job itself.
    builder
        .environment()
        .put("INFUSE_JAVA_OPTS", "-Xmx640m " + SparkTestSession.FAST_SMALL_JOBS_JAVA_OPTS);
    long started = System.nanoTime();
    Process process = builder.start();
    String printed = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(600, TimeUnit.SECONDS)).as(printed).isTrue();
    assertThat(process.exitValue()).as(printed).isZero();
    assertThat(printed).doesNotContain("OutOfMemoryError");
    Row run = new Warehouse(spark, warehouse).read("runs").head();
    System.out.printf(
        "bad input at scale: %d-byte file, %d malformed lines, -Xmx640m: read %d = written %d +"
            + " quarantined %d in %.1f s%n",
        Files.size(corpus.file()),
        malformed,
        run.<Long>getAs("input_count"),
        run.<Long>getAs("output_count"),
        run.<Long>getAs("quarantined_count"),
        (System.nanoTime() - started) / 1e9);
    assertThat(run.<Long>getAs("output_count")).isEqualTo(corpus.goodItems());
    assertThat(run.<Long>getAs("quarantined_count")).isEqualTo(malformed);
  }

  /** The ingest of a corpus with no bad-fraction ceiling: here nearly every record is bad. */
  private static List<String> ingest(String format, Corpus corpus, String warehouse) {
    return List.of(
        "ingest",
        "--format",
        format,
        "--input",
        corpus.file().toString(),
        "--warehouse",
        warehouse,
        "--set",
        "ingest.max_bad_fraction=1.0");
  }

  private static Path shared(String name) {
    return SparkTestSession.benchmark(name);
  }

  private static Corpus jsonLines(
      Path dir, Path source, int good, ToIntFunction<JsonNode> itemsPerRecord) throws IOException {
    return jsonLines(dir, source, good, itemsPerRecord, BAD);
  }

  /**
   * The first {@code good} records of a JSON Lines file, then {@code bad} malformed lines cycling
   * through every way a line can be wrong: truncated JSON, a value that is not an object, an object
   * without the fields, invalid UTF-8, half of a good record, a bare word.
   */
  private static Corpus jsonLines(
      Path dir, Path source, int good, ToIntFunction<JsonNode> itemsPerRecord, int bad)
      throws IOException {
    List<String> lines =
        Files.readAllLines(source, StandardCharsets.UTF_8).stream()
            .filter(l -> !l.isBlank())
            .limit(good)
            .toList();
    long items = 0;
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (String line : lines) {
      items += itemsPerRecord.applyAsInt(JSON.readTree(line));
      out.writeBytes((line + "\n").getBytes(StandardCharsets.UTF_8));
    }
    // A good record cut short; at most 200 characters, so that the file's size is the count of
    // its records rather than of copies of a 25 KB QuALITY article.
    String half = lines.get(0).substring(0, Math.min(200, lines.get(0).length() / 2));
    for (int i = 0; i < bad; i++) {
      byte[] line =
          switch (i % 6) {
            case 0 -> ("{\"broken\": \"record " + i).getBytes(StandardCharsets.UTF_8);
            case 1 -> ("[" + i + ", 2, 3]").getBytes(StandardCharsets.UTF_8);
            case 2 -> ("{\"unrelated\": " + i + "}").getBytes(StandardCharsets.UTF_8);
            case 3 -> invalidUtf8("{\"text\": \"caf", "\"}", i);
            case 4 -> (half + i).getBytes(StandardCharsets.UTF_8);
            default -> ("not json " + i).getBytes(StandardCharsets.UTF_8);
          };
      out.writeBytes(line);
      out.write('\n');
    }
    Path file = target(dir, source);
    Files.write(file, out.toByteArray());
    return new Corpus(file, items, bad);
  }

  /**
   * The header and first {@code good} records of a CSV file, byte for byte, then {@link #BAD}
   * malformed rows: too few columns, invalid UTF-8 in a field, an id with every other field empty.
   */
  private static Corpus csv(Path dir, Path source, int good, int itemsPerRecord)
      throws IOException {
    String text = Files.readString(source, StandardCharsets.UTF_8);
    long end = text.length();
    int width;
    try (CSVParser parser = CSVParser.parse(text, CSVFormat.DEFAULT)) {
      int index = 0;
      width = -1;
      for (CSVRecord record : parser) {
        if (width < 0) {
          width = record.size();
        }
        if (index++ == good + 1) {
          end = record.getCharacterPosition();
          break;
        }
      }
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    String head = text.substring(0, (int) end);
    out.writeBytes(head.getBytes(StandardCharsets.UTF_8));
    if (!head.endsWith("\n")) {
      out.write('\n');
    }
    for (int i = 0; i < BAD; i++) {
      byte[] row =
          switch (i % 3) {
            case 0 -> ("only,two-" + i).getBytes(StandardCharsets.UTF_8);
            case 1 -> invalidUtf8("bad-" + i + ",caf", ",".repeat(width - 2), i);
            default -> ("id-" + i + ",".repeat(width - 1)).getBytes(StandardCharsets.UTF_8);
          };
      out.writeBytes(row);
      out.write('\n');
    }
    Path file = target(dir, source);
    Files.write(file, out.toByteArray());
    return new Corpus(file, (long) good * itemsPerRecord, BAD);
  }

  /**
   * The LongHealth test fixture's two patients, then {@link #BAD} malformed patients: questions
   * that are not a list, no texts, a patient that is not an object.
   */
  private static Corpus longHealth(Path dir) throws IOException {
    Path source =
        SparkTestSession.repoRoot()
            .resolve("udfs/src/test/resources/ingest/longhealth/benchmark_v5_fixture.json");
    JsonNode fixture = JSON.readTree(source.toFile());
    StringBuilder json = new StringBuilder("{");
    long items = 0;
    List<String> entries = new ArrayList<>();
    for (var it = fixture.fields(); it.hasNext(); ) {
      var entry = it.next();
      entries.add(
          JSON.writeValueAsString(entry.getKey())
              + ": "
              + JSON.writeValueAsString(entry.getValue()));
      if (entry.getKey().startsWith("patient_")) {
        items += 1 + entry.getValue().get("questions").size();
      }
    }
    for (int i = 0; i < BAD; i++) {
      String patient =
          switch (i % 3) {
            case 0 ->
                "{\"name\": \"P"
                    + i
                    + "\", \"texts\": {\"text_0\": \"note\"}, \"questions\": \"none\"}";
            case 1 -> "{\"name\": \"P" + i + "\", \"questions\": []}";
            default -> "\"patient " + i + "\"";
          };
      entries.add("\"patient_bad_" + i + "\": " + patient);
    }
    json.append(String.join(",\n", entries)).append("}\n");
    Path file = Files.createDirectories(dir.resolve("longhealth")).resolve(source.getFileName());
    Files.writeString(file, json, StandardCharsets.UTF_8);
    return new Corpus(file, items, BAD);
  }

  /** {@code before}, a byte that is never valid UTF-8, the record number, then {@code after}. */
  private static byte[] invalidUtf8(String before, String after, int i) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.writeBytes(before.getBytes(StandardCharsets.UTF_8));
    out.write(0xFF);
    out.writeBytes((i + after).getBytes(StandardCharsets.UTF_8));
    return out.toByteArray();
  }

  /** Where a generated file goes: under its source's folder and name, as readers expect. */
  private static Path target(Path dir, Path source) throws IOException {
    Path file = dir.resolve(source.getParent().getFileName()).resolve(source.getFileName());
    Files.createDirectories(file.getParent());
    return file;
  }
}
