package dev.infuse.udfs.ingest;

import dev.infuse.udfs.ingest.FuzzedFile.Outcome;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVParser;
import org.apache.commons.csv.CSVRecord;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Mixes real good records of each CSV format with damaged ones (invalid UTF-8 inside a multi-line
 * field, blank or invalid required values, short rows, broken quoting) and checks that every record
 * is accounted for at {@code record N (line L)}.
 */
class CsvFuzzTest {
  private static final int GOOD_RECORDS = 3;
  private static final char INVALID_MARKER = '\u0001';

  /** A damage done to a copy of a good record's values, and what the reason must name. */
  record Damage(String reasonMentions, Consumer<Map<String, String>> edit) {}

  record Case(
      String format, String path, String longColumn, String separator, List<Damage> damages) {
    @Override
    public String toString() {
      return format;
    }
  }

  static Stream<Case> cases() {
    return Stream.of(
        new Case(
            "anli",
            "anli/ANLI_analysis_r2_dev.csv",
            "context",
            "\n",
            List.of(
                new Damage(
                    "gold_label: got 'x', expected one of e, n, c", r -> r.put("gold_label", "x")),
                new Damage("context: got an empty value", r -> r.put("context", " ")),
                new Damage("uid: got an empty value", r -> r.put("uid", "")))),
        new Case(
            "medec",
            "medec_ms/MEDEC-MS-TestSet-with-GroundTruth-and-ErrorType.shared.csv",
            "Text",
            "\r\n",
            List.of(
                new Damage("Error Flag: got '2', expected 0 or 1", r -> r.put("Error Flag", "2")),
                new Damage("Text: got an empty value", r -> r.put("Text", "")),
                new Damage("Text ID: got an empty value", r -> r.put("Text ID", " ")))),
        new Case(
            "aci-bench",
            "aci_bench/train.csv",
            "dialogue",
            "\n",
            List.of(
                new Damage("note: got an empty value", r -> r.put("note", "")),
                new Damage("encounter_id: got an empty value", r -> r.put("encounter_id", "")))));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void everyRecordBecomesItemsOrARejection(Case testCase) {
    Random random = new Random(testCase.format().hashCode());
    BenchmarkReader reader = BenchmarkReaders.forFormat(testCase.format());
    List<String> header = new ArrayList<>();
    List<Map<String, String>> good = goodRecords(testCase.path(), header);
    String headerText = print(header) + testCase.separator();
    List<Planned> planned = new ArrayList<>();
    for (Map<String, String> record : good) {
      planned.add(new Planned(print(record.values()), Outcome.ITEMS, null));
      Map<String, String> invalid = new LinkedHashMap<>(record);
      String longText = invalid.get(testCase.longColumn());
      int at = random.nextInt(longText.length());
      invalid.put(
          testCase.longColumn(),
          longText.substring(0, at) + "\nsecond line" + INVALID_MARKER + longText.substring(at));
      planned.add(new Planned(print(invalid.values()), Outcome.REJECTED, "invalid UTF-8 at byte "));
      List<String> shortRow = new ArrayList<>(record.values()).subList(0, 2);
      planned.add(
          new Planned(print(shortRow), Outcome.REJECTED, "fields, expected " + header.size()));
    }
    for (int i = 0; i < testCase.damages().size(); i++) {
      Map<String, String> damaged = new LinkedHashMap<>(good.get(i % good.size()));
      testCase.damages().get(i).edit().accept(damaged);
      planned.add(
          new Planned(
              print(damaged.values()),
              Outcome.REJECTED,
              testCase.damages().get(i).reasonMentions()));
    }
    List<String> values = new ArrayList<>(good.get(0).values());
    planned.add(
        new Planned(
            "\"stray\"quote," + print(values.subList(1, values.size())),
            Outcome.REJECTED,
            "malformed CSV"));
    Collections.shuffle(planned, random);
    planned.add(
        new Planned(
            "\"never closed, runs\nto the end of the file", Outcome.REJECTED, "malformed CSV"));

    String path = "fuzz/" + testCase.format() + "_test.csv";
    FuzzedFile file = new FuzzedFile().raw(utf8(headerText));
    int recordNumber = 0;
    for (Planned record : planned) {
      if (random.nextInt(4) == 0) {
        file.raw(utf8(testCase.separator()));
      }
      String location = "record " + (++recordNumber) + " (line " + file.nextLine() + ")";
      SourceFile alone = new SourceFile(path, utf8(headerText + record.text()));
      file.record(location, bytes(record.text()), record.outcome(), record.reasonMentions(), alone);
      file.raw(utf8(testCase.separator()));
    }
    file.check(reader, path);
  }

  private record Planned(String text, Outcome outcome, String reasonMentions) {}

  private static List<Map<String, String>> goodRecords(String path, List<String> header) {
    String text = new String(SharedBenchmarks.file(path).content(), StandardCharsets.UTF_8);
    CSVFormat format = CSVFormat.DEFAULT.builder().setHeader().setSkipHeaderRecord(true).build();
    try (CSVParser parser = CSVParser.parse(text, format)) {
      header.addAll(parser.getHeaderNames());
      List<Map<String, String>> records = new ArrayList<>();
      for (CSVRecord record : parser) {
        if (records.size() == GOOD_RECORDS) {
          break;
        }
        Map<String, String> values = new LinkedHashMap<>();
        header.forEach(column -> values.put(column, record.get(column).replace("\r\n", "\n")));
        records.add(values);
      }
      return records;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String print(Collection<String> values) {
    StringBuilder out = new StringBuilder();
    try {
      CSVFormat.DEFAULT.builder().setRecordSeparator("").build().printRecord(out, values.toArray());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toString();
  }

  /** UTF-8, with the marker character turned into a 0xFF byte that no UTF-8 text contains. */
  private static byte[] bytes(String text) {
    byte[] bytes = utf8(text);
    for (int i = 0; i < bytes.length; i++) {
      if (bytes[i] == INVALID_MARKER) {
        bytes[i] = (byte) 0xff;
      }
    }
    return bytes;
  }

  private static byte[] utf8(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
