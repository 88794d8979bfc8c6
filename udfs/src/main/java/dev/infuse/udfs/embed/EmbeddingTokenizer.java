package dev.infuse.udfs.embed;

import ai.djl.huggingface.tokenizers.Encoding;
import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import ai.djl.huggingface.tokenizers.jni.LibUtils;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * Tokenizes text for a sentence encoder whose window is {@code maxTokens} tokens, special tokens
 * included. Each text is tokenized once, whole, without special tokens; the model's template (such
 * as BERT's {@code [CLS] … [SEP]}, read once from the tokenizer.json by encoding a probe) then
 * wraps each window of at most {@code maxTokens} minus the template's tokens. The first window is
 * exactly what the tokenizer's own truncation to {@code maxTokens} gives. Unlike {@code
 * Tokenizers}' chunking tokenizer, this one yields model inputs, not spans.
 *
 * <p>Thread-safe: encoding only reads the native tokenizer.
 */
public final class EmbeddingTokenizer implements AutoCloseable {
  private static final String PROBE = "a";

  private final HuggingFaceTokenizer tokenizer;
  private final int maxTokens;
  private final long[] prefixIds;
  private final long[] prefixTypes;
  private final long[] suffixIds;
  private final long[] suffixTypes;

  /**
   * @throws IllegalArgumentException if the bytes are not a tokenizer.json the library can read, or
   *     its template does not wrap a text in fixed tokens that leave room in {@code maxTokens}
   */
  public EmbeddingTokenizer(byte[] tokenizerJson, int maxTokens) {
    this.maxTokens = maxTokens;
    LibUtils.checkStatus(); // a native library that fails to load is not a bad tokenizer.json
    Map<String, String> options =
        Map.of("addSpecialTokens", "true", "truncation", "false", "padding", "false");
    try {
      this.tokenizer =
          HuggingFaceTokenizer.newInstance(new ByteArrayInputStream(tokenizerJson), options);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (RuntimeException e) {
      throw new IllegalArgumentException(
          "not a Hugging Face tokenizer.json (" + e.getMessage() + ")", e);
    }
    Encoding wrapped = tokenizer.encode(PROBE, true, false);
    long[] bare = tokenizer.encode(PROBE, false, false).getIds();
    long[] ids = wrapped.getIds();
    int at = indexOf(ids, bare);
    if (bare.length == 0 || at < 0) {
      tokenizer.close();
      throw new IllegalArgumentException(
          "a tokenizer whose special tokens do not wrap the text (probe '"
              + PROBE
              + "': "
              + Arrays.toString(ids)
              + " around "
              + Arrays.toString(bare)
              + ")");
    }
    long[] types = wrapped.getTypeIds();
    prefixIds = Arrays.copyOfRange(ids, 0, at);
    prefixTypes = Arrays.copyOfRange(types, 0, at);
    suffixIds = Arrays.copyOfRange(ids, at + bare.length, ids.length);
    suffixTypes = Arrays.copyOfRange(types, at + bare.length, ids.length);
    if (textCapacity() < 1) {
      tokenizer.close();
      throw new IllegalArgumentException(
          "a template of "
              + (prefixIds.length + suffixIds.length)
              + " special tokens, which leaves no room in "
              + maxTokens
              + " tokens");
    }
  }

  public int maxTokens() {
    return maxTokens;
  }

  /** Text tokens one window holds: {@code maxTokens} minus the template's special tokens. */
  public int textCapacity() {
    return maxTokens - prefixIds.length - suffixIds.length;
  }

  /** Token ids of each text, truncated to its first window, in order. */
  public List<TokenIds> tokenize(List<String> texts) {
    List<TokenIds> result = new ArrayList<>(texts.size());
    for (List<TokenIds> windows : windows(texts, 0)) {
      result.add(windows.get(0));
    }
    return result;
  }

  /**
   * Every window of each text, in order: one if the text fits, otherwise windows of {@link
   * #textCapacity} text tokens that overlap by at least {@code overlap} tokens ({@link
   * #windowStarts}), each wrapped in the template.
   */
  public List<List<TokenIds>> windows(List<String> texts, int overlap) {
    String[] inputs = new String[texts.size()];
    for (int i = 0; i < inputs.length; i++) {
      inputs[i] = replaceLoneSurrogates(texts.get(i));
    }
    Encoding[] encodings = tokenizer.batchEncode(inputs, false, false);
    int capacity = textCapacity();
    List<List<TokenIds>> result = new ArrayList<>(encodings.length);
    for (Encoding encoding : encodings) {
      long[] ids = encoding.getIds();
      long[] types = encoding.getTypeIds();
      List<TokenIds> windows = new ArrayList<>();
      for (int start : windowStarts(ids.length, capacity, overlap)) {
        int end = Math.min(ids.length, start + capacity);
        windows.add(
            new TokenIds(
                wrap(prefixIds, ids, start, end, suffixIds),
                wrap(prefixTypes, types, start, end, suffixTypes)));
      }
      result.add(windows);
    }
    return result;
  }

  /**
   * Where each window of a text of {@code length} tokens starts, for windows of {@code capacity}
   * tokens: {@code [0]} if the text fits; otherwise every {@code capacity - overlap} tokens while a
   * window would still end before the text does, then one last window that ends exactly at the
   * text's end, so that every window is full and consecutive windows share at least {@code overlap}
   * tokens.
   */
  public static int[] windowStarts(int length, int capacity, int overlap) {
    if (capacity < 1 || overlap < 0 || overlap >= capacity) {
      throw new IllegalArgumentException(
          "windows: capacity "
              + capacity
              + " and overlap "
              + overlap
              + ", expected 0 <= overlap < capacity");
    }
    if (length <= capacity) {
      return new int[] {0};
    }
    int stride = capacity - overlap;
    List<Integer> starts = new ArrayList<>();
    for (int start = 0; start + capacity < length; start += stride) {
      starts.add(start);
    }
    starts.add(length - capacity);
    return starts.stream().mapToInt(Integer::intValue).toArray();
  }

  @Override
  public void close() {
    tokenizer.close();
  }

  private static long[] wrap(long[] prefix, long[] text, int start, int end, long[] suffix) {
    long[] out = new long[prefix.length + (end - start) + suffix.length];
    System.arraycopy(prefix, 0, out, 0, prefix.length);
    System.arraycopy(text, start, out, prefix.length, end - start);
    System.arraycopy(suffix, 0, out, prefix.length + end - start, suffix.length);
    return out;
  }

  private static int indexOf(long[] haystack, long[] needle) {
    for (int i = 0; i + needle.length <= haystack.length; i++) {
      if (Arrays.equals(haystack, i, i + needle.length, needle, 0, needle.length)) {
        return i;
      }
    }
    return -1;
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
