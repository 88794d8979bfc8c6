package dev.infuse.udfs.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.infuse.udfs.ingest.FuzzedFile.Outcome;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Mixes real good records of each JSON Lines format with damaged ones (truncated, invalid UTF-8,
 * not an object, missing or mistyped fields, gold out of range) and checks that every line is
 * accounted for.
 */
class JsonLinesFuzzTest {
  private static final int GOOD_RECORDS = 3;
  private static final byte[] BOM = {(byte) 0xef, (byte) 0xbb, (byte) 0xbf};

  /**
   * A damage done to a copy of a good record, its expected outcome, and what the reason must name.
   */
  record Damage(String reasonMentions, Outcome outcome, Consumer<ObjectNode> edit) {}

  record Case(String format, String path, List<Damage> damages) {
    @Override
    public String toString() {
      return format;
    }
  }

  static Stream<Case> cases() {
    return Stream.of(
        new Case(
            "quality",
            "quality/quality_dev_sample.jsonl",
            List.of(
                new Damage(
                    "missing field 'article_id'", Outcome.REJECTED, r -> r.remove("article_id")),
                new Damage(
                    "questions: got 42, expected an array",
                    Outcome.REJECTED,
                    r -> r.put("questions", 42)),
                new Damage("empty article", Outcome.REJECTED, r -> r.put("article", "  \n ")),
                new Damage(
                    "questions[0].gold_label: got 9, expected an integer in 1..4",
                    Outcome.PARTIAL,
                    r -> question(r, 0).put("gold_label", 9)),
                new Damage(
                    "questions[1].options: got 'abc', expected an array",
                    Outcome.PARTIAL,
                    r -> question(r, 1).put("options", "abc")),
                new Damage(
                    "missing field 'questions[0].question'",
                    Outcome.PARTIAL,
                    r -> question(r, 0).remove("question")))),
        new Case(
            "financebench",
            "financebench/financebench_open_source.jsonl",
            List.of(
                new Damage("missing field 'question'", Outcome.REJECTED, r -> r.remove("question")),
                new Damage(
                    "evidence: got 'none', expected an array",
                    Outcome.REJECTED,
                    r -> r.put("evidence", "none")),
                new Damage(
                    "evidence[0].evidence_page_num: got -3, expected an integer >= 0",
                    Outcome.REJECTED,
                    r -> evidence(r).put("evidence_page_num", -3)),
                new Damage(
                    "answer: got 12, expected a string",
                    Outcome.REJECTED,
                    r -> r.put("answer", 12)),
                new Damage(
                    "no evidence_text to fall back on",
                    Outcome.REJECTED,
                    r -> evidence(r).put("evidence_text_full_page", " ").remove("evidence_text")))),
        new Case(
            "gsm8k",
            "gsm8k/train.jsonl",
            List.of(
                new Damage("missing field 'answer'", Outcome.REJECTED, r -> r.remove("answer")),
                new Damage("no '####'", Outcome.REJECTED, r -> r.put("answer", "It is 5.")),
                new Damage(
                    "'many' after '####' is not a number",
                    Outcome.REJECTED,
                    r -> r.put("answer", "Count them.\n#### many")),
                new Damage(
                    "question: got an array, expected a string",
                    Outcome.REJECTED,
                    r -> r.putArray("question").add(1)))),
        new Case(
            "medqa",
            "medqa_usmle/phrases_no_exclude_test.shared.jsonl",
            List.of(
                new Damage("missing field 'options'", Outcome.REJECTED, r -> r.remove("options")),
                new Damage(
                    "answer_idx: got 'E', expected one of A, B, C, D",
                    Outcome.REJECTED,
                    r -> r.put("answer_idx", "E")),
                new Damage(
                    "answer: got 'not an option', expected the text of option",
                    Outcome.REJECTED,
                    r -> r.put("answer", "not an option")),
                new Damage(
                    "options.A: got 3, expected a string",
                    Outcome.REJECTED,
                    r -> ((ObjectNode) r.get("options")).put("A", 3)))),
        new Case(
            "agentclinic",
            "agentclinic_medqa/agentclinic_medqa_extended.shared.jsonl",
            List.of(
                new Damage(
                    "missing field 'OSCE_Examination'",
                    Outcome.REJECTED,
                    r -> r.remove("OSCE_Examination")),
                new Damage(
                    "OSCE_Examination: got 'x', expected an object",
                    Outcome.REJECTED,
                    r -> r.put("OSCE_Examination", "x")),
                new Damage(
                    "empty OSCE_Examination",
                    Outcome.REJECTED,
                    r -> r.putObject("OSCE_Examination")))));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void everyLineBecomesItemsOrRejections(Case testCase) {
    Random random = new Random(testCase.format().hashCode());
    BenchmarkReader reader = BenchmarkReaders.forFormat(testCase.format());
    List<byte[]> good = goodLines(testCase.path());
    List<Planned> planned = new ArrayList<>();
    for (byte[] line : good) {
      planned.add(new Planned(line, Outcome.ITEMS, null));
      planned.add(new Planned(truncated(line, random), Outcome.REJECTED, "JSON"));
      planned.add(new Planned(truncated(line, random), Outcome.REJECTED, "JSON"));
      planned.add(
          new Planned(withInvalidByte(line, random), Outcome.REJECTED, "invalid UTF-8 at byte "));
    }
    planned.add(
        new Planned(utf8("[1, 2]"), Outcome.REJECTED, "expected a JSON object, got an array"));
    planned.add(new Planned(utf8("{\"a\": 1} {\"b\": 2}"), Outcome.REJECTED, "malformed JSON"));
    for (int i = 0; i < testCase.damages().size(); i++) {
      Damage damage = testCase.damages().get(i);
      ObjectNode record =
          Json.parseObject(new String(good.get(i % good.size()), StandardCharsets.UTF_8));
      damage.edit().accept(record);
      planned.add(
          new Planned(utf8(Json.compact(record)), damage.outcome(), damage.reasonMentions()));
    }
    Collections.shuffle(planned, random);

    String path = "fuzz/" + testCase.format() + "_dev.jsonl";
    FuzzedFile file = new FuzzedFile().raw(BOM);
    for (Planned line : planned) {
      if (random.nextInt(4) == 0) {
        file.raw(utf8(random.nextBoolean() ? "   \n" : "\n"));
      }
      SourceFile alone = new SourceFile(path, line.bytes());
      file.record(
          "line " + file.nextLine(), line.bytes(), line.outcome(), line.reasonMentions(), alone);
      file.raw(utf8(random.nextBoolean() ? "\r\n" : "\n"));
    }
    file.check(reader, path);

    CollectingSink sink = CollectingSink.read(reader, file.file(path));
    for (FuzzedFile.Entry entry : file.entries()) {
      boolean invalid = "invalid UTF-8 at byte ".equals(entry.reasonMentions());
      if (invalid) {
        assertThat(sink.rejectionsAt(entry.location()))
            .singleElement()
            .satisfies(r -> assertThat(r.payloadBytes()).isEqualTo(entry.bytes()));
      }
    }
  }

  private record Planned(byte[] bytes, Outcome outcome, String reasonMentions) {}

  private static List<byte[]> goodLines(String path) {
    byte[] content = SharedBenchmarks.file(path).content();
    List<byte[]> lines = new ArrayList<>();
    int start = 0;
    for (int i = 0; i < content.length && lines.size() < GOOD_RECORDS; i++) {
      if (content[i] == '\n') {
        lines.add(Arrays.copyOfRange(content, start, i));
        start = i + 1;
      }
    }
    return lines;
  }

  /** A proper prefix of the line: never a whole JSON object. */
  private static byte[] truncated(byte[] line, Random random) {
    return Arrays.copyOf(line, 1 + random.nextInt(line.length - 1));
  }

  /** The line with a 0xFF byte (never valid in UTF-8) put in at a random place. */
  private static byte[] withInvalidByte(byte[] line, Random random) {
    int at = random.nextInt(line.length);
    byte[] damaged = new byte[line.length + 1];
    System.arraycopy(line, 0, damaged, 0, at);
    damaged[at] = (byte) 0xff;
    System.arraycopy(line, at, damaged, at + 1, line.length - at);
    return damaged;
  }

  private static ObjectNode question(ObjectNode record, int index) {
    return (ObjectNode) record.get("questions").get(index);
  }

  private static ObjectNode evidence(ObjectNode record) {
    JsonNode evidence = record.get("evidence");
    return (ObjectNode) ((ArrayNode) evidence).get(0);
  }

  private static byte[] utf8(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
