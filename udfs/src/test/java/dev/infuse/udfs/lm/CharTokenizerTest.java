package dev.infuse.udfs.lm;

import static org.assertj.core.api.Assertions.assertThat;

import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import org.junit.jupiter.api.Test;

class CharTokenizerTest {
  @Test
  void oneTokenPerCharacterAndDecodesExactly() {
    try (HuggingFaceTokenizer tokenizer = CharTokenizer.create()) {
      long[] ids = tokenizer.encode("ab c\nZ", false, false).getIds();
      assertThat(ids)
          .containsExactly(
              CharTokenizer.id('a'),
              CharTokenizer.id('b'),
              CharTokenizer.id(' '),
              CharTokenizer.id('c'),
              CharTokenizer.id('\n'),
              CharTokenizer.id('Z'));
      assertThat(tokenizer.decode(ids, true)).isEqualTo("ab c\nZ");
      assertThat(tokenizer.encode("a", true, false).getIds())
          .containsExactly(CharTokenizer.id('a'));
      assertThat(tokenizer.decode(new long[] {CharTokenizer.id('x'), CharTokenizer.EOS}, true))
          .isEqualTo("x");
    }
  }

  @Test
  void longTextsAreNotTruncatedWithTheUntruncatedOptionsAndTruncationIsNeverSilent() {
    try (HuggingFaceTokenizer tokenizer = CharTokenizer.create();
        HuggingFaceTokenizer djlDefaults = CharTokenizer.create(java.util.Map.of())) {
      assertThat(TokenIds.encode(tokenizer, "a".repeat(2000))).hasSize(2000);
      // DJL's defaults keep the first 512 tokens; TokenIds refuses that rather than drop the rest.
      assertThat(djlDefaults.encode("a".repeat(2000), false, false).getIds()).hasSize(512);
      org.assertj.core.api.Assertions.assertThatThrownBy(
              () -> TokenIds.encode(djlDefaults, "a".repeat(2000)))
          .hasMessageContaining("truncates to 512 tokens")
          .hasMessageContaining("truncation=false");
    }
  }
}
