package dev.infuse.udfs.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class MedQaReaderTest {
  private final MedQaReader reader = new MedQaReader();

  @Test
  void readsTheSharedTestShare() {
    CollectingSink sink =
        CollectingSink.read(
            reader, SharedBenchmarks.file("medqa_usmle/phrases_no_exclude_test.shared.jsonl"));

    assertThat(sink.rejections).isEmpty();
    assertThat(sink.questions).hasSize(411);
    assertThat(sink.questions.stream().map(QuestionRecord::questionId).distinct()).hasSize(411);
    QuestionRecord first = sink.questions.get(0);
    assertThat(first.gold()).isEqualTo("D");
    assertThat(first.goldIndex()).isEqualTo(3);
    assertThat(first.options().get(first.goldIndex())).isEqualTo("Cross-linking of DNA");
    assertThat(first.split()).isEqualTo("test");
    assertThat(first.subsets()).containsExactly("step1");
    assertThat(first.meta().get("metamap_phrases")).startsWith("[\"67 year old man\"");
    assertThat(sink.questions).filteredOn(q -> q.gold().equals("A")).hasSize(112);
    assertThat(sink.questions).filteredOn(q -> q.subsets().contains("step2&3")).hasSize(202);
  }

  @Test
  void rejectsAnAnswerThatDisagreesWithItsLetter() {
    String line =
        "{\"question\": \"Q?\", \"options\": {\"B\": \"two\", \"A\": \"one\"},"
            + " \"answer\": \"one\", \"answer_idx\": \"B\"}\n"
            + "{\"question\": \"Q?\", \"options\": {\"B\": \"two\", \"A\": \"one\"},"
            + " \"answer\": \"two \", \"answer_idx\": \"B\"}";
    CollectingSink sink =
        CollectingSink.read(
            reader, new SourceFile("m/dev.jsonl", line.getBytes(StandardCharsets.UTF_8)));

    assertThat(sink.rejections)
        .singleElement()
        .extracting(Rejection::reason)
        .isEqualTo("answer: got 'one', expected the text of option B: 'two'");
    assertThat(sink.questions)
        .singleElement()
        .satisfies(
            q -> {
              assertThat(q.options()).containsExactly("one", "two");
              assertThat(q.gold()).isEqualTo("B");
              assertThat(q.subsets()).isEmpty();
            });
  }
}
