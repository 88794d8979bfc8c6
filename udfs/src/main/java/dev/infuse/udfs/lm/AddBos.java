package dev.infuse.udfs.lm;

import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import dev.infuse.udfs.common.EnumNames;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * Whether log-likelihood scoring puts a BOS token before each context ({@code answer.add_bos}).
 *
 * <p>lm-evaluation-harness up to v0.4.9.1 encoded without special tokens ({@code
 * add_bos_token=False}); from v0.4.9.2 ({@code add_bos_token=None}, PR #3347) it encodes with the
 * tokenizer's own default, so a tokenizer whose post-processor puts BOS first (Llama, Mistral,
 * Gemma) gets it and one whose post-processor adds nothing (GPT-2, Pythia) does not; a text that
 * already starts with BOS never gets a second one; and an empty context is {@code [BOS]} when the
 * tokenizer has one, else {@code [EOS]}.
 *
 * <p>The BOS of a tokenizer is what its post-processor puts before a single sequence: the leading
 * id of {@code encode(text, add_special_tokens=true)} that {@code encode(text, false)} lacks. A
 * post-processor that also appends tokens after the text (BERT's {@code [CLS] $A [SEP]}, as in
 * MiniLM's WordPiece tokenizer, Infuse's default) is an encoder's template, not a BOS: such a
 * tokenizer has no BOS here ({@code auto} adds nothing, {@code true} is refused), and nothing
 * appended is ever added, since scoring splits the continuation off the encoded context, which a
 * trailing token would corrupt.
 */
public enum AddBos {
  /** v0.4.9.2 and later: BOS where the tokenizer's post-processor puts one, else none. */
  AUTO,
  /** Always BOS; the tokenizer must define one. */
  TRUE,
  /** Never BOS (the harness before v0.4.9.2, and Infuse before this option). */
  FALSE;

  /** The probe text whose encodings with and without special tokens reveal the BOS. */
  static final String PROBE = "a";

  @JsonValue
  public String id() {
    return EnumNames.id(this);
  }

  /** As spelled in config, so messages read like the YAML. */
  @Override
  public String toString() {
    return id();
  }

  @JsonCreator
  public static AddBos fromName(String name) {
    return EnumNames.parse(AddBos.class, name);
  }

  /**
   * The BOS id to put before each context under this setting, or null for none.
   *
   * @throws IllegalArgumentException for {@code true} with a tokenizer that defines no BOS, or a
   *     post-processor that puts more than one token first
   */
  public Integer resolve(HuggingFaceTokenizer tokenizer) {
    if (this == FALSE) {
      return null;
    }
    Integer bos = tokenizerBos(tokenizer);
    if (bos == null && this == TRUE) {
      throw new IllegalArgumentException(
          "answer.add_bos: got true, but the model's tokenizer.json has no BOS (its post_processor"
              + " puts no single token before a text without appending one after it), expected auto"
              + " or false for this tokenizer");
    }
    return bos;
  }

  /** {@link #resolve(HuggingFaceTokenizer)} for a model directory's tokenizer.json. */
  public Integer resolve(Path tokenizerJson) {
    if (this == FALSE) {
      return null;
    }
    try (HuggingFaceTokenizer tokenizer =
        HuggingFaceTokenizer.newInstance(tokenizerJson, TokenIds.UNTRUNCATED)) {
      return resolve(tokenizer);
    } catch (IOException e) {
      throw new UncheckedIOException("tokenizer: cannot read " + tokenizerJson.toAbsolutePath(), e);
    }
  }

  /**
   * {@link #resolve(HuggingFaceTokenizer)} for the bytes of a tokenizer.json (an endpoint model's
   * {@code tokenizer}, read on the driver from any file system).
   */
  public Integer resolve(byte[] tokenizerJson) {
    if (this == FALSE) {
      return null;
    }
    try (HuggingFaceTokenizer tokenizer =
        HuggingFaceTokenizer.newInstance(
            new java.io.ByteArrayInputStream(tokenizerJson), TokenIds.UNTRUNCATED)) {
      return resolve(tokenizer);
    } catch (IOException e) {
      throw new UncheckedIOException("tokenizer: cannot read the tokenizer.json bytes", e);
    }
  }

  /**
   * The token the tokenizer's post-processor puts before a single text, or null when it puts none.
   */
  public static Integer tokenizerBos(HuggingFaceTokenizer tokenizer) {
    long[] plain = tokenizer.encode(PROBE, false, false).getIds();
    long[] special = tokenizer.encode(PROBE, true, false).getIds();
    int start = indexOf(special, plain);
    if (start < 0) {
      throw new IllegalArgumentException(
          "tokenizer: encoding '"
              + PROBE
              + "' with special tokens gives "
              + Arrays.toString(special)
              + ", which does not contain its plain encoding "
              + Arrays.toString(plain)
              + "; expected a post_processor that only adds tokens around the text");
    }
    if (start == 0 || start + plain.length < special.length) {
      // Nothing before the text, or an encoder's template that also appends (BERT): no BOS.
      return null;
    }
    if (start > 1) {
      throw new IllegalArgumentException(
          "tokenizer: its post_processor puts "
              + start
              + " tokens "
              + Arrays.toString(Arrays.copyOf(special, start))
              + " before a text, expected at most one (a BOS); set answer.add_bos=false");
    }
    return Math.toIntExact(special[0]);
  }

  private static int indexOf(long[] haystack, long[] needle) {
    outer:
    for (int i = 0; i + needle.length <= haystack.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (haystack[i + j] != needle[j]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }
}
