package dev.infuse.udfs.embed;

import ai.djl.huggingface.tokenizers.Encoding;
import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import ai.djl.huggingface.tokenizers.jni.LibUtils;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Tokenizes text for a sentence encoder: special tokens added, truncated to {@code maxTokens}
 * (special tokens included), no padding. Unlike {@code Tokenizers}' chunking tokenizer, which must
 * see every token, an encoder only takes its first {@code maxTokens}.
 *
 * <p>Thread-safe: encoding only reads the native tokenizer.
 */
public final class EmbeddingTokenizer implements AutoCloseable {
  private final HuggingFaceTokenizer tokenizer;
  private final int maxTokens;

  /**
   * @throws IllegalArgumentException if the bytes are not a tokenizer.json the library can read
   */
  public EmbeddingTokenizer(byte[] tokenizerJson, int maxTokens) {
    this.maxTokens = maxTokens;
    LibUtils.checkStatus(); // a native library that fails to load is not a bad tokenizer.json
    Map<String, String> options =
        Map.of(
            "addSpecialTokens",
            "true",
            "truncation",
            "true",
            "padding",
            "false",
            "maxLength",
            String.valueOf(maxTokens));
    try {
      this.tokenizer =
          HuggingFaceTokenizer.newInstance(new ByteArrayInputStream(tokenizerJson), options);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (RuntimeException e) {
      throw new IllegalArgumentException(
          "not a Hugging Face tokenizer.json (" + e.getMessage() + ")", e);
    }
  }

  public int maxTokens() {
    return maxTokens;
  }

  /** Token ids of each text, in order. */
  public List<TokenIds> tokenize(List<String> texts) {
    String[] inputs = new String[texts.size()];
    for (int i = 0; i < inputs.length; i++) {
      inputs[i] = replaceLoneSurrogates(texts.get(i));
    }
    Encoding[] encodings = tokenizer.batchEncode(inputs);
    List<TokenIds> result = new ArrayList<>(encodings.length);
    for (Encoding encoding : encodings) {
      result.add(new TokenIds(encoding.getIds(), encoding.getTypeIds()));
    }
    return result;
  }

  @Override
  public void close() {
    tokenizer.close();
  }

  /** JNI turns an unpaired surrogate into garbage for Rust; U+FFFD is what it stands for anyway. */
  private static String replaceLoneSurrogates(String text) {
    char[] chars = null;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (Character.isHighSurrogate(c)
          && i + 1 < text.length()
          && Character.isLowSurrogate(text.charAt(i + 1))) {
        i++;
      } else if (Character.isSurrogate(c)) {
        if (chars == null) {
          chars = text.toCharArray();
        }
        chars[i] = '\uFFFD';
      }
    }
    return chars == null ? text : new String(chars);
  }
}
