package dev.infuse.udfs.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class AnliReaderTest {
  private final AnliReader reader = new AnliReader();

  @Test
  void readsRoundOneDev() {
    CollectingSink sink =
        CollectingSink.read(reader, SharedBenchmarks.file("anli/ANLI_analysis_r1_dev.csv"));

    assertThat(sink.rejections).isEmpty();
    assertThat(sink.questions).hasSize(1000);
    assertThat(sink.documents).hasSize(1000);
    assertThat(sink.distinctDocIds()).hasSize(845);
    assertThat(sink.questions).filteredOn(q -> q.gold().equals("entailment")).hasSize(334);
    QuestionRecord second = sink.questions.get(1);
    assertThat(second.questionId()).isEqualTo("anli:e66af435-eef1-491b-af2a-4825d54611e1");
    assertThat(second.question()).isEqualTo("Franco Zeffirelli had a political career");
    assertThat(second.gold()).isEqualTo("entailment");
    assertThat(second.goldIndex()).isZero();
    assertThat(second.options()).containsExactly("entailment", "neutral", "contradiction");
    assertThat(second.answerType()).isEqualTo("label");
    assertThat(second.split()).isEqualTo("dev");
    assertThat(second.subsets()).containsExactly("r1");
    assertThat(second.meta())
        .containsEntry("A1Code", "Basic-Lexical-Similar")
        .containsEntry("adversary_pred", "n")
        .containsKeys("reason", "tags", "eid");
    DocumentRecord premise = sink.documents.get(1);
    assertThat(second.docId()).isEqualTo(premise.docId()).startsWith("anli:ctx:");
    assertThat(premise.text()).startsWith("Franco Zeffirelli, KBE Grande Ufficiale OMRI");
    assertThat(premise.license()).isEqualTo("CC BY-NC 4.0");
    assertThat(sink.questions.get(2).location()).startsWith("record 3 (line ");
  }

  @Test
  void readsRoundTwoDespiteItsDifferentColumnOrder() {
    CollectingSink sink =
        CollectingSink.read(reader, SharedBenchmarks.file("anli/ANLI_analysis_r2_dev.csv"));

    assertThat(sink.rejections).isEmpty();
    assertThat(sink.questions).hasSize(1000);
    assertThat(sink.distinctDocIds()).hasSize(872);
    assertThat(sink.questions.get(0).questionId())
        .isEqualTo("anli:4145fcb6-de26-4910-a4f0-64275c50f2be");
    assertThat(sink.questions).allSatisfy(q -> assertThat(q.subsets()).containsExactly("r2"));
    assertThat(sink.questions).filteredOn(q -> q.gold().equals("contradiction")).hasSize(333);
  }
}
