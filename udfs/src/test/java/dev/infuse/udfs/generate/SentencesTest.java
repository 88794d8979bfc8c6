package dev.infuse.udfs.generate;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class SentencesTest {
  private static List<String> texts(String text) {
    return Sentences.split(text).stream().map(Sentence::text).toList();
  }

  @Test
  void abbreviationsAndDecimalsDoNotEndSentences() {
    assertThat(texts("Mr. Smith paid $3.50. Then he left."))
        .containsExactly("Mr. Smith paid $3.50.", "Then he left.");
    assertThat(texts("Dr. No met e.g. Gen. Lee in the U.S. army. It rained."))
        .containsExactly("Dr. No met e.g. Gen. Lee in the U.S. army.", "It rained.");
    assertThat(texts("LARRY M. HARRIS wrote it. Pi is 3.14159 or so!"))
        .containsExactly("LARRY M. HARRIS wrote it.", "Pi is 3.14159 or so!");
  }

  @Test
  void quotesStayWithTheirSentence() {
    assertThat(
            texts("\"Go away!\" he said. \"Why?\" She frowned. He said, \"Fine.\" Then he left."))
        .containsExactly(
            "\"Go away!\" he said.",
            "\"Why?\"",
            "She frowned.",
            "He said, \"Fine.\"",
            "Then he left.");
  }

  @Test
  void hardLineBreaksAreSpacesAndBlankLinesEndParagraphs() {
    String text =
        "   The cell had been put\n together more    efficiently than any\n he had seen\n\n   An invitation, the"
            + "\n Comity was sure. It was.  \n";
    List<Sentence> sentences = Sentences.split(text);
    assertThat(sentences)
        .extracting(Sentence::text)
        .containsExactly(
            "The cell had been put together more efficiently than any he had seen",
            "An invitation, the Comity was sure.",
            "It was.");
    assertThat(sentences).extracting(Sentence::paragraph).containsExactly(0, 1, 1);
    for (Sentence sentence : sentences) {
      assertThat(Sentences.normalize(text.substring(sentence.start(), sentence.end())))
          .isEqualTo(sentence.text());
      assertThat(Character.isWhitespace(text.charAt(sentence.start()))).isFalse();
    }
  }

  @Test
  void ellipsisBeforeLowerCaseContinues() {
    assertThat(
            texts("You may get a translation ... but miss the meaning. And the effect... The end."))
        .containsExactly(
            "You may get a translation ... but miss the meaning.", "And the effect...", "The end.");
  }

  @Test
  void blankTextHasNoSentences() {
    assertThat(Sentences.split("")).isEmpty();
    assertThat(Sentences.split(" \n\n \t")).isEmpty();
    assertThat(Sentences.split(null)).isEmpty();
  }

  @Test
  void qualityArticlesSplitIntoPlausibleSentences() {
    for (QualityDocuments.Doc doc : QualityDocuments.load()) {
      List<Sentence> sentences = Sentences.split(doc.article());
      assertThat(sentences.size()).isGreaterThan(100);
      int previousEnd = 0;
      for (Sentence sentence : sentences) {
        assertThat(sentence.start()).isGreaterThanOrEqualTo(previousEnd);
        assertThat(sentence.text()).doesNotContain("  ").doesNotContain("\n");
        previousEnd = sentence.end();
      }
      double meanWords = sentences.stream().mapToInt(Sentence::wordCount).average().orElse(0);
      assertThat(meanWords).isBetween(6.0, 40.0);
    }
  }
}
