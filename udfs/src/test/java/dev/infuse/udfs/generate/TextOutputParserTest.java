package dev.infuse.udfs.generate;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class TextOutputParserTest {
  @Test
  void plainTextPassesThroughTrimmed() {
    ParseResult<String> result =
        TextOutputParser.parse("\n  Korvin sat in the cell.\n\nHe waited.  \n");
    assertThat(result.values()).containsExactly("Korvin sat in the cell.\n\nHe waited.");
    assertThat(result.problems()).isEmpty();
  }

  @Test
  void preamblesFencesAndClosingOffersAreDropped() {
    assertThat(
            TextOutputParser.parse("Here is the rewritten document:\n\nKorvin sat in the cell.")
                .values())
        .containsExactly("Korvin sat in the cell.");
    assertThat(
            TextOutputParser.parse(
                    "Sure! Here's the rephrased text:\nKorvin sat.\n\nLet me know if you want more.")
                .values())
        .containsExactly("Korvin sat.");
    assertThat(TextOutputParser.parse("Certainly.\nKorvin sat.").values())
        .containsExactly("Korvin sat.");
    assertThat(TextOutputParser.parse("```\nKorvin sat.\n```").values())
        .containsExactly("Korvin sat.");
    assertThat(TextOutputParser.parse("**Rewritten document:**\nKorvin sat.").values())
        .containsExactly("Korvin sat.");
  }

  @Test
  void proseThatMerelyStartsLikeAPreambleIsKept() {
    assertThat(TextOutputParser.parse("Here is where the story begins. Korvin sat.").values())
        .containsExactly("Here is where the story begins. Korvin sat.");
    assertThat(TextOutputParser.parse("Certainly the Tr'en were efficient.").values())
        .containsExactly("Certainly the Tr'en were efficient.");
  }

  @Test
  void emptyPreambleOnlyAndRefusalsFail() {
    assertThat(TextOutputParser.parse("").reason()).isEqualTo("empty output");
    assertThat(TextOutputParser.parse(null).ok()).isFalse();
    assertThat(TextOutputParser.parse("Here is the rewritten document:\n\n").reason())
        .isEqualTo("no text besides a preamble");
    assertThat(TextOutputParser.parse("I'm sorry, but I can't help with that.").reason())
        .startsWith("the model refused");
  }
}
