package dev.infuse.udfs.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class FinanceBenchReaderTest {
  private final FinanceBenchReader reader = new FinanceBenchReader();

  @Test
  void readsTheOpenSourceSample() {
    CollectingSink sink =
        CollectingSink.read(
            reader, SharedBenchmarks.file("financebench/financebench_open_source.jsonl"));

    assertThat(sink.rejections).isEmpty();
    assertThat(sink.questions).hasSize(150);
    assertThat(sink.documents).hasSize(189);
    assertThat(sink.distinctDocIds()).hasSize(168);
    assertThat(sink.questions)
        .extracting(q -> q.subsets().get(0))
        .containsOnly("metrics-generated", "domain-relevant", "novel-generated");
    QuestionRecord first = sink.questions.get(0);
    assertThat(first.questionId()).startsWith("financebench:financebench_id_");
    assertThat(first.docId()).isNull();
    assertThat(first.answerType()).isEqualTo("free");
    assertThat(first.options()).isNull();
    assertThat(first.gold()).isNotBlank();
    assertThat(first.split()).isEqualTo("test");
    String evidenceDocIds = first.meta().get("evidence_doc_ids");
    DocumentRecord page = sink.documentsAt(first.location()).get(0);
    assertThat(evidenceDocIds).startsWith(page.docId());
    assertThat(page.docId())
        .isEqualTo("financebench:" + page.meta().get("doc_name") + ":p" + page.meta().get("page"));
    assertThat(page.title())
        .isEqualTo(page.meta().get("doc_name") + " page " + page.meta().get("page"));
    assertThat(page.license()).isEqualTo("CC-BY-NC-4.0");
    assertThat(page.source()).isEqualTo("financebench_open_source.jsonl");
    assertThat(first.meta().get("evidence_texts")).startsWith("[\"");
  }

  @Test
  void aPageCitedByTwoQuestionsIsEmittedTwiceWithEqualContent() {
    CollectingSink sink =
        CollectingSink.read(
            reader, SharedBenchmarks.file("financebench/financebench_open_source.jsonl"));

    for (String docId : sink.distinctDocIds()) {
      assertThat(
              sink.documents.stream()
                  .filter(d -> d.docId().equals(docId))
                  .map(CollectingSink::withoutLocation)
                  .distinct())
          .hasSize(1);
    }
  }

  @Test
  void acceptsQuestionFilesOnly() {
    assertThat(reader.accepts("financebench_open_source.jsonl")).isTrue();
    assertThat(reader.accepts("financebench_document_information.jsonl")).isFalse();
  }
}
