package dev.infuse.udfs.lm;

import static org.assertj.core.api.Assertions.assertThat;

import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import org.junit.jupiter.api.Test;

class CharTokenizerTest {
  @Test
  void oneTokenPerCharacterAndDecodesExactly() {
    try (HuggingFaceTokenizer tokenizer = CharTokenizer.create()) {
      long[] ids = tokenizer.encode("ab c\nZ", false, false).getIds();
      assertThat(ids).containsExactly(
          CharTokenizer.id('a'), CharTokenizer.id('b'), CharTokenizer.id(' '), CharTokenizer.id('c'),
          CharTokenizer.id('\n'), CharTokenizer.id('Z'));
      assertThat(tokenizer.decode(ids, true)).isEqualTo("ab c\nZ");
      assertThat(tokenizer.encode("a", true, false).getIds()).containsExactly(CharTokenizer.id('a'));
      assertThat(tokenizer.decode(new long[] {CharTokenizer.id('x'), CharTokenizer.EOS}, true)).isEqualTo("x");
    }
  }
}
