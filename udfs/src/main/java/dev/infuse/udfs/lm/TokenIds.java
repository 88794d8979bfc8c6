package dev.infuse.udfs.lm;

import ai.djl.huggingface.tokenizers.Encoding;
import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import dev.infuse.udfs.text.HuggingFaceTextTokenizer;
import java.util.Map;

/**
 * Text to token ids the way generation and scoring need them: no special tokens, never cut short.
 */
final class TokenIds {
  /**
   * Options for {@code HuggingFaceTokenizer.newInstance}: DJL truncates to 512 tokens by default,
   * keeping the first ones, while generation and scoring need every token and keep the last ones.
   */
  static final Map<String, String> UNTRUNCATED = HuggingFaceTextTokenizer.RAW_OPTIONS;

  private TokenIds() {}

  /** The ids of {@code text}; fails rather than return a silently truncated prefix. */
  static long[] encode(HuggingFaceTokenizer tokenizer, String text) {
    Encoding encoding = tokenizer.encode(text, false, false);
    if (encoding.exceedMaxLength()) {
      throw new IllegalStateException(
          "the model's tokenizer truncates to "
              + tokenizer.getMaxLength()
              + " tokens (truncation "
              + tokenizer.getTruncation()
              + "); build it with the option truncation=false,"
              + " generation and scoring truncate on the left themselves");
    }
    return encoding.getIds();
  }
}
