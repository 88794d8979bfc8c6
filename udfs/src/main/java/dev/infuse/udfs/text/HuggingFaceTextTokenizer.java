package dev.infuse.udfs.text;

import ai.djl.huggingface.tokenizers.Encoding;
import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import ai.djl.huggingface.tokenizers.jni.CharSpan;
import ai.djl.huggingface.tokenizers.jni.LibUtils;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.Map;

/**
 * A {@link TextTokenizer} over a Hugging Face {@code tokenizer.json}, run by DJL's Rust library
 * (bundled in the DJL jar and extracted to the DJL cache dir; nothing is downloaded).
 *
 * <p>Truncation, padding and special tokens are turned off whatever the file says: MiniLM's file
 * truncates and pads to 128, and a chunker must see every token of a long document.
 *
 * <p>DJL reports offsets in Unicode code points (the Rust side calls {@code encode_char_offsets});
 * they are converted here to UTF-16 indices so that {@code text.substring(start, end)} is the
 * token's surface even after an emoji or other supplementary character.
 *
 * <p>Thread-safe: encoding only reads the native tokenizer (Rust's {@code Tokenizer::encode} takes
 * {@code &self}), so one instance can serve every task thread of an executor. {@link #close()} must
 * not run while another thread is encoding.
 */
public final class HuggingFaceTextTokenizer implements TextTokenizer {
  /**
   * Tokenizer options that give a text's own tokens, all of them: no special tokens, no padding,
   * and no truncation (DJL otherwise keeps the first 512 tokens, silently). Models built on the
   * same file use the same options.
   */
  public static final Map<String, String> RAW_OPTIONS =
      Map.of("addSpecialTokens", "false", "truncation", "false", "padding", "false");

  private static final char REPLACEMENT_CHAR = '\uFFFD';

  static {
    // Offline mode keeps DJL from calling home (EC2 telemetry) and from fetching a CUDA build of
    // the
    // native library on GPU hosts; the CPU build inside the jar is all a tokenizer needs. A
    // launcher
    // that set DJL_OFFLINE or ai.djl.offline itself keeps its choice.
    if (System.getenv("DJL_OFFLINE") == null && System.getProperty("ai.djl.offline") == null) {
      System.setProperty("ai.djl.offline", "true");
    }
  }

  private final String id;
  private final HuggingFaceTokenizer tokenizer;

  /**
   * Builds the tokenizer from the bytes of a {@code tokenizer.json}.
   *
   * @throws IllegalArgumentException if the bytes are not a tokenizer.json the library can read
   */
  public HuggingFaceTextTokenizer(String id, byte[] tokenizerJson) {
    this.id = id;
    // Loaded first, so a native library that fails to load is not reported as a bad tokenizer.json.
    LibUtils.checkStatus();
    try {
      this.tokenizer =
          HuggingFaceTokenizer.newInstance(new ByteArrayInputStream(tokenizerJson), RAW_OPTIONS);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (RuntimeException e) {
      throw new IllegalArgumentException(
          "not a Hugging Face tokenizer.json (" + e.getMessage() + ")", e);
    }
  }

  @Override
  public String id() {
    return id;
  }

  @Override
  public TokenSpans spans(String text) {
    String encodable = replaceLoneSurrogates(text);
    Encoding encoding = tokenizer.encode(encodable, false, false);
    CharSpan[] charSpans = encoding.getCharTokenSpans();
    int[] utf16Index = codePointToUtf16Index(encodable);
    int[] starts = new int[charSpans.length];
    int[] ends = new int[charSpans.length];
    int size = 0;
    for (CharSpan span : charSpans) {
      // A token with no span was added by the template, not read from the text.
      if (span == null || span.getEnd() <= span.getStart()) {
        continue;
      }
      starts[size] = utf16Index == null ? span.getStart() : utf16Index[span.getStart()];
      ends[size] = utf16Index == null ? span.getEnd() : utf16Index[span.getEnd()];
      size++;
    }
    return new TokenSpans(Arrays.copyOf(starts, size), Arrays.copyOf(ends, size));
  }

  @Override
  public int count(String text) {
    return spans(text).size();
  }

  @Override
  public int[] ids(String text) {
    return narrow(tokenizer.encode(replaceLoneSurrogates(text), false, false).getIds());
  }

  /**
   * One native call for the whole batch, which the Rust side encodes on all cores: per-text calls
   * leave a task single-threaded. The same ids as {@link #ids(String)}, text by text.
   */
  @Override
  public int[][] ids(java.util.List<String> texts) {
    String[] encodable = new String[texts.size()];
    for (int i = 0; i < encodable.length; i++) {
      encodable[i] = replaceLoneSurrogates(texts.get(i));
    }
    Encoding[] encodings = tokenizer.batchEncode(encodable, false, false);
    int[][] ids = new int[encodings.length][];
    for (int i = 0; i < ids.length; i++) {
      ids[i] = narrow(encodings[i].getIds());
    }
    return ids;
  }

  private static int[] narrow(long[] ids) {
    int[] narrow = new int[ids.length];
    for (int i = 0; i < ids.length; i++) {
      narrow[i] = Math.toIntExact(ids[i]);
    }
    return narrow;
  }

  @Override
  public void close() {
    tokenizer.close();
  }

  @Override
  public String toString() {
    return "HuggingFaceTextTokenizer[" + id + "]";
  }

  /**
   * Maps code point index to UTF-16 index, with one extra entry for the end of the text; null when
   * the text has no surrogate pairs and the two indices are the same.
   */
  private static int[] codePointToUtf16Index(String text) {
    int codePoints = text.codePointCount(0, text.length());
    if (codePoints == text.length()) {
      return null;
    }
    int[] index = new int[codePoints + 1];
    int utf16 = 0;
    for (int cp = 0; cp < codePoints; cp++) {
      index[cp] = utf16;
      utf16 += Character.charCount(text.codePointAt(utf16));
    }
    index[codePoints] = utf16;
    return index;
  }

  /**
   * JNI hands an unpaired surrogate to Rust as several replacement chars, which shifts every later
   * offset; one U+FFFD in its place keeps lengths and code point counts unchanged.
   */
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
        chars[i] = REPLACEMENT_CHAR;
      }
    }
    return chars == null ? text : new String(chars);
  }
}
