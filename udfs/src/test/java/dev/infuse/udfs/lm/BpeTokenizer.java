package dev.infuse.udfs.lm;

import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Small BPE tokenizer.json files for tests, laid out as real decoder models ship them, so merges
 * act across the context/continuation boundary the way they do in a real model (unlike {@link
 * CharTokenizer}, which has no merges). Merges are written as in a merges file, {@code "left
 * right"} in the vocabulary's own spelling; the token a merge makes gets the next id, in rank
 * order, so ids are easy to work out by hand.
 */
public final class BpeTokenizer {
  /** GPT-2's {@code bytes_to_unicode}: printable bytes stand for themselves, the rest from 256. */
  private static final char[] BYTE_CHARS = new char[256];

  static {
    int next = 256;
    for (int b = 0; b < 256; b++) {
      boolean printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || b >= 0xAE;
      BYTE_CHARS[b] = (char) (printable ? b : next++);
    }
  }

  private final String json;
  private final Map<String, Integer> vocab;
  private final int eos;

  private BpeTokenizer(String json, Map<String, Integer> vocab, int eos) {
    this.json = json;
    this.vocab = vocab;
    this.eos = eos;
  }

  /**
   * GPT-2's layout: byte-level BPE behind GPT-2's pre-tokenizer regex, no prefix space. Token id
   * {@code b} (0..255) is the byte {@code b}, spelled with GPT-2's byte-to-character table ({@code
   * Ġ} is the space byte 0x20; {@code Ã©} are the two bytes of é, 0xC3 0xA9); merged tokens follow
   * from 256 in rank order, then {@code <|endoftext|>}.
   */
  public static BpeTokenizer gpt2Style(String... merges) {
    Map<String, Integer> vocab = new LinkedHashMap<>();
    for (int b = 0; b < 256; b++) {
      vocab.put(String.valueOf(BYTE_CHARS[b]), b);
    }
    return build(
        vocab,
        merges,
        "<|endoftext|>",
        "null",
        "{\"type\":\"ByteLevel\",\"add_prefix_space\":false,\"trim_offsets\":true,"
            + "\"use_regex\":true}",
        "{\"type\":\"ByteLevel\",\"add_prefix_space\":true,\"trim_offsets\":true,"
            + "\"use_regex\":true}",
        "null",
        "\"continuing_subword_prefix\":\"\",\"end_of_word_suffix\":\"\",\"fuse_unk\":false,"
            + "\"byte_fallback\":false");
  }

  /**
   * Llama 2's layout (a SentencePiece BPE converted to tokenizer.json): spaces become {@code ▁} and
   * one {@code ▁} is prepended to the text, no pre-tokenizer, so merges cross word boundaries. Ids:
   * {@code <unk>} 0, {@code <s>} 1, {@code </s>} 2 (EOS), then each character of {@code alphabet}
   * ({@code ▁} for the space), then merged tokens in rank order.
   */
  public static BpeTokenizer sentencePieceStyle(String alphabet, String... merges) {
    Map<String, Integer> vocab = new LinkedHashMap<>();
    vocab.put("<unk>", 0);
    vocab.put("<s>", 1);
    vocab.put("</s>", 2);
    alphabet.codePoints().forEach(c -> vocab.putIfAbsent(Character.toString(c), vocab.size()));
    return build(
        vocab,
        merges,
        null,
        "{\"type\":\"Sequence\",\"normalizers\":[{\"type\":\"Prepend\",\"prepend\":\"▁\"},"
            + "{\"type\":\"Replace\",\"pattern\":{\"String\":\" \"},\"content\":\"▁\"}]}",
        "null",
        "{\"type\":\"Sequence\",\"decoders\":[{\"type\":\"Replace\",\"pattern\":{\"String\":\"▁\"},"
            + "\"content\":\" \"},{\"type\":\"Fuse\"},"
            + "{\"type\":\"Strip\",\"content\":\" \",\"start\":1,\"stop\":0}]}",
        "\"<unk>\"",
        "\"continuing_subword_prefix\":null,\"end_of_word_suffix\":null,\"fuse_unk\":true,"
            + "\"byte_fallback\":false");
  }

  /**
   * @param eosToAdd the EOS token to append after the merged tokens, or null when {@code </s>} is
   *     already in the vocabulary
   */
  private static BpeTokenizer build(
      Map<String, Integer> vocab,
      String[] merges,
      String eosToAdd,
      String normalizer,
      String preTokenizer,
      String decoder,
      String unkToken,
      String modelOptions) {
    List<String> mergeJson = new ArrayList<>();
    for (String merge : merges) {
      String[] parts = merge.split(" ");
      if (parts.length != 2 || !vocab.containsKey(parts[0]) || !vocab.containsKey(parts[1])) {
        throw new IllegalArgumentException(
            "merge '" + merge + "': expected two tokens of the vocabulary, separated by a space");
      }
      String merged = parts[0] + parts[1];
      if (vocab.putIfAbsent(merged, vocab.size()) != null) {
        throw new IllegalArgumentException("merge '" + merge + "': " + merged + " already exists");
      }
      mergeJson.add(quote(merge));
    }
    String eosToken = eosToAdd == null ? "</s>" : eosToAdd;
    if (eosToAdd != null) {
      vocab.put(eosToAdd, vocab.size());
    }
    int eos = vocab.get(eosToken);
    StringBuilder added = new StringBuilder();
    for (String special : List.of("<unk>", "<s>", "</s>", "<|endoftext|>")) {
      if (vocab.containsKey(special)) {
        added
            .append(added.isEmpty() ? "" : ",")
            .append("{\"id\":")
            .append(vocab.get(special))
            .append(",\"content\":")
            .append(quote(special))
            .append(",\"single_word\":false,\"lstrip\":false,\"rstrip\":false,")
            .append("\"normalized\":false,\"special\":true}");
      }
    }
    StringBuilder vocabJson = new StringBuilder();
    vocab.forEach(
        (token, id) ->
            vocabJson
                .append(vocabJson.isEmpty() ? "" : ",")
                .append(quote(token))
                .append(':')
                .append(id));
    String json =
        "{\"version\":\"1.0\",\"truncation\":null,\"padding\":null,\"added_tokens\":["
            + added
            + "],\"normalizer\":"
            + normalizer
            + ",\"pre_tokenizer\":"
            + preTokenizer
            + ",\"post_processor\":null,\"decoder\":"
            + decoder
            + ",\"model\":{\"type\":\"BPE\",\"dropout\":null,\"unk_token\":"
            + (unkToken == null ? "null" : unkToken)
            + ","
            + modelOptions
            + ",\"ignore_merges\":false,\"vocab\":{"
            + vocabJson
            + "},\"merges\":["
            + String.join(",", mergeJson)
            + "]}}";
    return new BpeTokenizer(json, Map.copyOf(vocab), eos);
  }

  /** The id of a token, in the vocabulary's spelling. */
  public int id(String token) {
    Integer id = vocab.get(token);
    if (id == null) {
      throw new IllegalArgumentException("no token '" + token + "'");
    }
    return id;
  }

  /** The ids of several tokens, in order. */
  public long[] ids(String... tokens) {
    long[] ids = new long[tokens.length];
    for (int i = 0; i < tokens.length; i++) {
      ids[i] = id(tokens[i]);
    }
    return ids;
  }

  public int eos() {
    return eos;
  }

  public int vocabSize() {
    return vocab.size();
  }

  /** The tokenizer.json text. */
  public String json() {
    return json;
  }

  /** A fresh tokenizer built as models build theirs: no truncation, no special tokens to add. */
  public HuggingFaceTokenizer create() {
    try {
      return HuggingFaceTokenizer.newInstance(
          new ByteArrayInputStream(json.getBytes(StandardCharsets.UTF_8)), TokenIds.UNTRUNCATED);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String quote(String s) {
    StringBuilder out = new StringBuilder("\"");
    for (char c : s.toCharArray()) {
      if (c == '"' || c == '\\') {
        out.append('\\').append(c);
      } else if (c < 0x20) {
        out.append(String.format("\\u%04x", (int) c));
      } else {
        out.append(c);
      }
    }
    return out.append('"').toString();
  }
}
