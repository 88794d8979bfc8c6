package dev.infuse.udfs.lm;

import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * A character-level tokenizer.json for tests: one token per printable ASCII character and newline,
 * {@code <eos>} as id 0, no pre-tokenizer, no added special tokens, and a Fuse decoder so decoding
 * gives back the text exactly. Token ids are easy to write by hand: {@link #id(char)}.
 */
public final class CharTokenizer {
  /** {@code <eos>}, newline, then ASCII 32..126. */
  public static final int VOCAB_SIZE = 2 + (126 - 32 + 1);

  public static final int EOS = 0;

  private CharTokenizer() {}

  /** The id of a single character. */
  public static int id(char c) {
    if (c == '\n') {
      return 1;
    }
    if (c < 32 || c > 126) {
      throw new IllegalArgumentException("no token for " + (int) c);
    }
    return c - 30;
  }

  /** The tokenizer.json text. */
  public static String json() {
    StringBuilder vocab = new StringBuilder("\"<eos>\":0,\"\\n\":1");
    for (char c = 32; c <= 126; c++) {
      String escaped = c == '"' ? "\\\"" : c == '\\' ? "\\\\" : String.valueOf(c);
      vocab.append(",\"").append(escaped).append("\":").append(id(c));
    }
    return "{\"version\":\"1.0\",\"truncation\":null,\"padding\":null,"
        + "\"added_tokens\":[{\"id\":0,\"content\":\"<eos>\",\"single_word\":false,\"lstrip\":false,"
        + "\"rstrip\":false,\"normalized\":false,\"special\":true}],"
        + "\"normalizer\":null,\"pre_tokenizer\":null,\"post_processor\":null,\"decoder\":{\"type\":\"Fuse\"},"
        + "\"model\":{\"type\":\"BPE\",\"dropout\":null,\"unk_token\":null,\"continuing_subword_prefix\":null,"
        + "\"end_of_word_suffix\":null,\"fuse_unk\":false,\"byte_fallback\":false,\"ignore_merges\":false,"
        + "\"vocab\":{"
        + vocab
        + "},\"merges\":[]}}";
  }

  /**
   * A fresh tokenizer built as models build theirs: no truncation, no padding, no special tokens to
   * add.
   */
  public static HuggingFaceTokenizer create() {
    return create(TokenIds.UNTRUNCATED);
  }

  /** A fresh tokenizer with DJL options. */
  public static HuggingFaceTokenizer create(java.util.Map<String, String> options) {
    try {
      return HuggingFaceTokenizer.newInstance(
          new ByteArrayInputStream(json().getBytes(StandardCharsets.UTF_8)), options);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
