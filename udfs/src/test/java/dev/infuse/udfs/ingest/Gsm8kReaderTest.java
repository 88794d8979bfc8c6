package dev.infuse.udfs.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class Gsm8kReaderTest {
  private final Gsm8kReader reader = new Gsm8kReader();

  @Test
  void readsTheTrainSplit() {
    CollectingSink sink = CollectingSink.read(reader, SharedBenchmarks.file("gsm8k/train.jsonl"));

    assertThat(sink.rejections).isEmpty();
    assertThat(sink.documents).isEmpty();
    assertThat(sink.questions).hasSize(7473);
    QuestionRecord first = sink.questions.get(0);
    assertThat(first.gold()).isEqualTo("72");
    assertThat(first.split()).isEqualTo("train");
    assertThat(first.answerType()).isEqualTo("numeric");
    assertThat(first.questionId()).matches("gsm8k:train:[0-9a-f]{16}");
    assertThat(first.meta().get("solution")).endsWith("#### 72");
    assertThat(sink.questions).allSatisfy(q -> assertThat(q.gold()).matches("-?\\d+(\\.\\d+)?"));
  }

  @Test
  void stripsThousandsSeparatorsAndRejectsNonNumbers() {
    String lines =
        "{\"question\": \"How many?\", \"answer\": \"Lots.\\n#### 1,000\"}\n"
            + "{\"question\": \"How many more?\", \"answer\": \"Some.\\n#### about ten\"}\n"
            + "{\"question\": \"And now?\", \"answer\": \"No marker\"}\n";
    CollectingSink sink =
        CollectingSink.read(
            reader, new SourceFile("gsm8k/test.jsonl", lines.getBytes(StandardCharsets.UTF_8)));

    assertThat(sink.questions)
        .singleElement()
        .satisfies(
            q -> {
              assertThat(q.gold()).isEqualTo("1000");
              assertThat(q.split()).isEqualTo("test");
            });
    assertThat(sink.rejections).extracting(Rejection::location).containsExactly("line 2", "line 3");
    assertThat(sink.rejections.get(0).reason()).contains("'about ten'").contains("not a number");
    assertThat(sink.rejections.get(1).reason()).contains("no '####'");
  }
}
