package dev.infuse.udfs.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class LongHealthReaderTest {
  private static final String FIXTURE = "ingest/longhealth/benchmark_v5_fixture.json";
  private final LongHealthReader reader = new LongHealthReader();

  @Test
  void readsEachPatientAsADocumentWithItsQuestions() {
    CollectingSink sink = CollectingSink.read(reader, SharedBenchmarks.resource(FIXTURE));

    assertThat(sink.rejections).isEmpty();
    assertThat(sink.documents)
        .extracting(DocumentRecord::docId)
        .containsExactly("longhealth:patient_01", "longhealth:patient_02");
    DocumentRecord anna = sink.documents.get(0);
    assertThat(anna.title()).isEqualTo("Anna Example");
    assertThat(anna.location()).isEqualTo("patient_01");
    assertThat(anna.source()).isEqualTo("benchmark_v5_fixture.json");
    assertThat(anna.text()).startsWith("### text_0\nAdmission report, 2019-04-11\n");
    assertThat(anna.text().indexOf("### text_2")).isLessThan(anna.text().indexOf("### text_10"));
    assertThat(anna.text()).contains("grade 2 neuropathy.\n\n### text_10\nFollow-up letter");
    assertThat(anna.meta())
        .containsEntry("eval_only", "true")
        .containsEntry("birthday", "1955-03-14")
        .containsEntry("diagnosis", "Diffuse large B-cell lymphoma (DLBCL)");
    String offsets = anna.meta().get("text_offsets");
    int start = Integer.parseInt(offsets.replaceAll(".*\"text_10\":\\[(\\d+),(\\d+)].*", "$1"));
    int end = Integer.parseInt(offsets.replaceAll(".*\"text_10\":\\[(\\d+),(\\d+)].*", "$2"));
    assertThat(anna.text().substring(start, end))
        .startsWith("Follow-up letter")
        .endsWith("No B symptoms.");

    assertThat(sink.questions).hasSize(5);
    QuestionRecord ldh = sink.questions.get(1);
    assertThat(ldh.questionId()).isEqualTo("longhealth:patient_01:q2");
    assertThat(ldh.docId()).isEqualTo("longhealth:patient_01");
    assertThat(ldh.gold()).isEqualTo("C");
    assertThat(ldh.goldIndex()).isEqualTo(2);
    assertThat(ldh.options()).hasSize(5);
    assertThat(ldh.split()).isEqualTo("test");
    assertThat(ldh.location()).isEqualTo("patient_01.questions[1]");
    assertThat(ldh.meta())
        .containsEntry("no", "2")
        .containsEntry("answer_location", "{\"text_0\":{\"start\":[0.86],\"end\":[0.97]}}");
    QuestionRecord duplicateOptions = sink.questions.get(3);
    assertThat(duplicateOptions.gold()).isEqualTo("C");
  }

  @Test
  void aTruncatedFileKeepsThePatientsBeforeTheBreak() {
    byte[] full = SharedBenchmarks.resource(FIXTURE).content();
    String text = new String(full, StandardCharsets.UTF_8);
    int cut = text.indexOf("\"questions\"", text.indexOf("\"patient_02\""));
    SourceFile truncated = new SourceFile("lh/benchmark_v5.json", Arrays.copyOf(full, cut));

    CollectingSink sink = CollectingSink.read(reader, truncated);

    assertThat(sink.documents)
        .extracting(DocumentRecord::docId)
        .containsExactly("longhealth:patient_01");
    assertThat(sink.questions).hasSize(3);
    assertThat(sink.rejections)
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.location()).isEqualTo("patient_02");
              assertThat(r.reason()).startsWith("truncated JSON: Unexpected end-of-input at line ");
              assertThat(r.payload()).startsWith("{\n        \"patient_id\": \"02\"");
              assertThat(r.source()).isEqualTo("lh/benchmark_v5.json");
            });
  }

  @Test
  void aCorrectAnswerMatchingNoOptionRejectsThatQuestion() {
    String text =
        new String(SharedBenchmarks.resource(FIXTURE).content(), StandardCharsets.UTF_8)
            .replace("\"correct\": \"40%\"", "\"correct\": \"45%\"");
    CollectingSink sink =
        CollectingSink.read(
            reader, new SourceFile("lh/benchmark_v5.json", text.getBytes(StandardCharsets.UTF_8)));

    assertThat(sink.documents).hasSize(2);
    assertThat(sink.questions).hasSize(4);
    assertThat(sink.rejections)
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.location()).isEqualTo("patient_02.questions[1]");
              assertThat(r.reason())
                  .isEqualTo(
                      "questions[1].correct: got '45%', expected the text of one of answer_a..answer_e");
              assertThat(r.payload()).contains("\"No\":2");
            });
  }

  @Test
  void aPatientWithoutTextsIsQuarantinedWithItsQuestions() {
    String json =
        "{\"patient_09\": {\"name\": \"X\", \"texts\": {\"text_0\": \" \"},"
            + " \"questions\": [{\"No\": 1}, {\"No\": 2}]}, \"canary-string\": \"c\"}";
    CollectingSink sink =
        CollectingSink.read(
            reader, new SourceFile("lh/benchmark_v5.json", json.getBytes(StandardCharsets.UTF_8)));

    assertThat(sink.documents).isEmpty();
    assertThat(sink.questions).isEmpty();
    assertThat(sink.rejections)
        .extracting(Rejection::location)
        .containsExactly("patient_09", "patient_09.questions[0]", "patient_09.questions[1]");
    assertThat(sink.rejections.get(2).reason())
        .isEqualTo(
            "document longhealth:patient_09 was quarantined: " + sink.rejections.get(0).reason());
  }

  @Test
  void invalidUtf8RejectsTheWholeFileOnce() {
    byte[] content = "{\"patient_01\": {\"name\": \"\u00e9\"}}".getBytes(StandardCharsets.UTF_8);
    content[content.length - 5] = (byte) 0xff;

    CollectingSink sink =
        CollectingSink.read(reader, new SourceFile("lh/benchmark_v5.json", content));

    assertThat(sink.documents).isEmpty();
    assertThat(sink.rejections)
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.location()).isEqualTo("file");
              assertThat(r.reason())
                  .isEqualTo("invalid UTF-8 at byte " + (content.length - 4) + " of the file");
              assertThat(r.payloadBytes()).isEqualTo(content);
            });
  }
}
