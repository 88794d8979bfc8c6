package dev.infuse.udfs.answer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.infuse.udfs.embed.EmbedderSpec;
import dev.infuse.udfs.embed.TextEmbedder;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The model-free answerer with the real MiniLM: it picks what the context supports. */
class EmbeddingAnswererTest {
  private static TextEmbedder embedder;

  @BeforeAll
  static void load() {
    embedder = new EmbedderSpec("default", "cpu", 16, 1, "window").load();
  }

  @AfterAll
  static void close() {
    embedder.close();
  }

  @Test
  void picksTheOptionTheContextSupports() {
    AnswerInput input =
        new AnswerInput(
            "q",
            "quality",
            "mcq",
            "What did the captain cook?",
            List.of(
                "A violin concerto",
                "Spaghetti with tomato sauce",
                "A spaceship engine",
                "Tax law"),
            null,
            null,
            List.of());
    EmbeddingAnswerer.Answer answer =
        new EmbeddingAnswerer(embedder)
            .answer(
                input,
                List.of(
                    "The captain spent the evening in the galley boiling pasta and stirring a pot of tomato sauce for the crew."));
    assertThat(answer.answer()).isEqualTo("B");
    assertThat(answer.scores()).hasSize(4);
    assertThat(answer.scores()[1])
        .isGreaterThan(answer.scores()[0])
        .isGreaterThan(answer.scores()[2]);
    assertThat(EmbeddingAnswerer.tag(input)).isEqualTo("embedding-option@1");
  }

  @Test
  void aWindowSeenBeforeIsNotEmbeddedAgainAndTheAnswerIsTheSame() {
    AnswerInput first =
        new AnswerInput(
            "q1",
            "quality",
            "mcq",
            "What did the captain cook?",
            List.of(
                "A violin concerto",
                "Spaghetti with tomato sauce",
                "A spaceship engine",
                "Tax law"),
            null,
            null,
            List.of());
    AnswerInput second =
        new AnswerInput(
            "q2",
            "quality",
            "mcq",
            "What did the crew eat?",
            List.of("Pasta", "Nothing at all", "A violin concerto", "Raw fish"),
            null,
            null,
            List.of());
    List<String> chunks =
        List.of(
            "The captain spent the evening in the galley boiling pasta for the crew.",
            "Later the crew ate in silence while the ship drifted.");
    EmbeddingAnswerer cached = new EmbeddingAnswerer(embedder);
    EmbeddingAnswerer.Answer a = cached.answer(first, chunks);
    assertThat(cached.embedded()).isEqualTo(6);
    EmbeddingAnswerer.Answer b = cached.answer(second, chunks);
    // The two chunks and "A violin concerto" were embedded for the first question already.
    assertThat(cached.embedded()).isEqualTo(9);
    assertThat(b.scores())
        .containsExactly(new EmbeddingAnswerer(embedder).answer(second, chunks).scores());
    assertThat(a.scores())
        .containsExactly(new EmbeddingAnswerer(embedder).answer(first, chunks).scores());
  }

  @Test
  void labelsAnswerWithTheLabelAndNoContextGivesNoAnswer() {
    AnswerInput nli =
        new AnswerInput(
            "q",
            "anli",
            "label",
            "x",
            List.of("entailment", "neutral", "contradiction"),
            null,
            null,
            List.of());
    assertThat(
            new EmbeddingAnswerer(embedder)
                .answer(nli, List.of("entailment is a relation"))
                .answer())
        .isIn("entailment", "neutral", "contradiction");
    assertThat(new EmbeddingAnswerer(embedder).answer(nli, List.of()).answer()).isNull();
  }

  @Test
  void numericAndFreeQuestionsAnswerWithTheClosestSentence() {
    AnswerInput money =
        new AnswerInput(
            "q",
            "financebench",
            "numeric",
            "What was the company's total revenue in 2022?",
            null,
            null,
            null,
            List.of());
    EmbeddingAnswerer.Answer answer =
        new EmbeddingAnswerer(embedder)
            .answer(
                money,
                List.of(
                    "The weather in Boston was cold. Total revenue in 2022 was $1,234.5 million. The CEO likes golf."));
    assertThat(answer.evidence()).isEqualTo("Total revenue in 2022 was $1,234.5 million.");
    assertThat(answer.answer()).as("2022 is asked about, so not the answer").isEqualTo("1234.5");
    assertThat(EmbeddingAnswerer.tag(money)).isEqualTo("embedding-sentence@1");
  }

  @Test
  void windowsCutLongTextByWords() {
    String text = String.join(" ", java.util.Collections.nCopies(320, "word"));
    assertThat(EmbeddingAnswerer.windows(text, 150)).hasSize(3);
    assertThat(EmbeddingAnswerer.windows(text, 150).get(2).split(" ")).hasSize(20);
    assertThat(EmbeddingAnswerer.windows("  ", 150)).isEmpty();
  }
}
