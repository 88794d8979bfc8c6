package dev.infuse.udfs.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class QualityReaderTest {
  private final QualityReader reader = new QualityReader();

  @Test
  void readsTheSharedDevSample() {
    CollectingSink sink =
        CollectingSink.read(reader, SharedBenchmarks.file("quality/quality_dev_sample.jsonl"));

    assertThat(sink.rejections).isEmpty();
    assertThat(sink.documents).hasSize(5);
    assertThat(sink.distinctDocIds()).hasSize(5);
    assertThat(sink.questions).hasSize(62);
    DocumentRecord first = sink.documents.get(0);
    assertThat(first.docId()).isEqualTo("quality:leval-quality-00");
    assertThat(first.title()).isEqualTo("LOST    IN    TRANSLATION");
    assertThat(first.source()).isEqualTo("QuALITY dev via L-Eval");
    assertThat(first.meta()).doesNotContainKey("author");
    QuestionRecord question = sink.questions.get(0);
    assertThat(question.questionId()).isEqualTo("quality:leval-quality-00_set1_1");
    assertThat(question.docId()).isEqualTo(first.docId());
    assertThat(question.split()).isEqualTo("dev");
    assertThat(question.answerType()).isEqualTo("mcq");
    assertThat(question.options()).hasSize(4);
    assertThat(question.gold()).isEqualTo("B");
    assertThat(question.goldIndex()).isEqualTo(1);
    assertThat(question.subsets()).isEmpty();
    assertThat(sink.questions).allSatisfy(q -> assertThat(q.location()).startsWith("line "));
  }

  @Test
  void readsTheOfficialRecordWrittenByTwoWriters() {
    SourceFile file = SharedBenchmarks.resource("ingest/quality/QuALITY.v1.0.1.htmlstripped.dev");
    CollectingSink sink = CollectingSink.read(reader, file);

    assertThat(sink.rejections).isEmpty();
    assertThat(sink.documents).hasSize(2);
    DocumentRecord first = sink.documents.get(0);
    assertThat(CollectingSink.withoutLocation(first))
        .isEqualTo(CollectingSink.withoutLocation(sink.documents.get(1)));
    assertThat(first.docId()).isEqualTo("quality:20001");
    assertThat(first.source()).isEqualTo("Gutenberg");
    assertThat(first.license()).startsWith("This eBook is for the use of anyone");
    assertThat(first.meta())
        .containsEntry("author", "Doe, Jane")
        .containsEntry("year", "1955")
        .containsEntry("topic", "Science fiction; Short stories")
        .containsEntry("url", "http://www.gutenberg.org/ebooks/99999");
    assertThat(sink.questions)
        .extracting(QuestionRecord::questionId)
        .containsExactly(
            "quality:20001_WRITERAA_1", "quality:20001_WRITERAA_2", "quality:20001_WRITERBB_1");
    QuestionRecord hard = sink.questions.get(0);
    assertThat(hard.subsets()).containsExactly("difficult");
    assertThat(hard.gold()).isEqualTo("C");
    assertThat(hard.goldIndex()).isEqualTo(2);
    assertThat(hard.meta())
        .containsEntry("writer_id", "1001")
        .containsEntry("writer_label", "3")
        .containsEntry("n_validations", "2")
        .containsEntry("n_speed_validations", "3")
        .containsEntry("set_unique_id", "20001_WRITERAA")
        .containsEntry("difficult", "1");
    assertThat(sink.questions.get(1).subsets()).isEmpty();
    assertThat(sink.questions.get(2).meta()).containsEntry("writer_id", "1002");
    assertThat(sink.questions).allSatisfy(q -> assertThat(q.split()).isEqualTo("dev"));
  }

  @Test
  void testSplitMayLackGoldLabelsButOtherSplitsMayNot() {
    String line =
        "{\"article_id\": 7, \"set_unique_id\": \"7_X\", \"article\": \"Some text.\","
            + " \"questions\": [{\"question\": \"Why?\", \"options\": [\"a\", \"b\"]}]}\n";
    byte[] bytes = line.getBytes(StandardCharsets.UTF_8);

    CollectingSink test =
        CollectingSink.read(reader, new SourceFile("x/QuALITY.v1.0.1.htmlstripped.test", bytes));
    CollectingSink train =
        CollectingSink.read(reader, new SourceFile("x/quality_train.jsonl", bytes));

    assertThat(test.questions)
        .singleElement()
        .satisfies(
            q -> {
              assertThat(q.split()).isEqualTo("test");
              assertThat(q.gold()).isNull();
              assertThat(q.goldIndex()).isNull();
              assertThat(q.questionId()).isEqualTo("quality:7_X_1");
            });
    assertThat(train.documents).hasSize(1);
    assertThat(train.questions).isEmpty();
    assertThat(train.rejections)
        .singleElement()
        .extracting(Rejection::reason)
        .isEqualTo("missing field 'questions[0].gold_label'");
  }

  @Test
  void emptyArticleQuarantinesTheDocumentAndEachQuestion() {
    String line =
        "{\"article_id\": \"42\", \"set_unique_id\": \"42_S\", \"article\": \"  \","
            + " \"questions\": [{\"question\": \"Q1\", \"options\": [\"a\"], \"gold_label\": 1},"
            + " {\"question\": \"Q2\", \"options\": [\"a\"], \"gold_label\": 1}]}";
    CollectingSink sink =
        CollectingSink.read(
            reader, new SourceFile("d/quality_dev.jsonl", line.getBytes(StandardCharsets.UTF_8)));

    assertThat(sink.documents).isEmpty();
    assertThat(sink.questions).isEmpty();
    assertThat(sink.rejections)
        .extracting(Rejection::reason)
        .containsExactly(
            "empty article",
            "document quality:42 was quarantined: empty article",
            "document quality:42 was quarantined: empty article");
    assertThat(sink.rejections).allSatisfy(r -> assertThat(r.location()).isEqualTo("line 1"));
  }

  @Test
  void goldLabelOutOfRangeRejectsOnlyThatQuestion() {
    String line =
        "{\"article_id\": \"42\", \"set_unique_id\": \"42_S\", \"article\": \"Text\","
            + " \"questions\": [{\"question\": \"Q1\", \"options\": [\"a\", \"b\", \"c\", \"d\"], \"gold_label\": 7},"
            + " {\"question\": \"Q2\", \"options\": [\"a\", \"b\"], \"gold_label\": \"2\"},"
            + " {\"question\": \"Q3\", \"options\": [\"a\", \"b\"], \"gold_label\": 2}]}";
    CollectingSink sink =
        CollectingSink.read(
            reader, new SourceFile("d/quality_dev.jsonl", line.getBytes(StandardCharsets.UTF_8)));

    assertThat(sink.documents).hasSize(1);
    assertThat(sink.questions)
        .extracting(QuestionRecord::questionId)
        .containsExactly("quality:42_S_3");
    assertThat(sink.rejections)
        .extracting(Rejection::reason)
        .containsExactly(
            "questions[0].gold_label: got 7, expected an integer in 1..4",
            "questions[1].gold_label: got '2', expected an integer in 1..2");
    assertThat(sink.rejections.get(0).payload()).contains("\"Q1\"");
  }

  @Test
  void optionalSubsetsAreReadAndABadOneRejectsOnlyItsQuestion() {
    String line =
        "{\"article_id\": \"p1\", \"set_unique_id\": \"p1_S\", \"article\": \"Text\","
            + " \"questions\": [{\"question\": \"Q1\", \"options\": [\"a\", \"b\"], \"gold_label\": 1,"
            + " \"subsets\": [\"held_out\", \"birth-city\"], \"difficult\": 1},"
            + " {\"question\": \"Q2\", \"options\": [\"a\", \"b\"], \"gold_label\": 1, \"subsets\": \"trained\"},"
            + " {\"question\": \"Q3\", \"options\": [\"a\", \"b\"], \"gold_label\": 1, \"subsets\": [3]},"
            + " {\"question\": \"Q4\", \"options\": [\"a\", \"b\"], \"gold_label\": 1, \"subsets\": [\"all\"]},"
            + " {\"question\": \"Q5\", \"options\": [\"a\", \"b\"], \"gold_label\": 1,"
            + " \"subsets\": [\"trained\", \"trained\"]},"
            + " {\"question\": \"Q6\", \"options\": [\"a\", \"b\"], \"gold_label\": 1, \"subsets\": []}]}";
    CollectingSink sink =
        CollectingSink.read(
            reader, new SourceFile("d/facts_dev.jsonl", line.getBytes(StandardCharsets.UTF_8)));

    assertThat(sink.questions)
        .extracting(QuestionRecord::questionId)
        .containsExactly("quality:p1_S_1", "quality:p1_S_6");
    assertThat(sink.questions.get(0).subsets())
        .containsExactly("difficult", "held_out", "birth-city");
    assertThat(sink.questions.get(1).subsets()).isEmpty();
    assertThat(sink.rejections)
        .extracting(Rejection::reason)
        .containsExactly(
            "questions[1].subsets: got 'trained', expected an array",
            "questions[2].subsets[0]: got 3, expected a subset name of letters, digits, _ or -",
            "questions[3].subsets[0]: got all, expected a subset other than all (every question is"
                + " in all)",
            "questions[4].subsets[1]: got trained a second time, expected each subset once");
  }

  @Test
  void acceptsJsonLinesAndTheOfficialFileNames() {
    assertThat(reader.accepts("quality_dev_sample.jsonl")).isTrue();
    assertThat(reader.accepts("QuALITY.v1.0.1.htmlstripped.train")).isTrue();
    assertThat(reader.accepts("QuALITY.v1.0.1.train")).isFalse();
    assertThat(reader.accepts("README.md")).isFalse();
  }
}
