package dev.infuse.udfs.text;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.Iterator;

/**
 * What a model needs to know about a {@code tokenizer.json} that DJL's tokenizer does not expose:
 * how many ids it can produce (the rows of the embedding) and the ids of named special tokens.
 */
public final class TokenizerVocab {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final int size;
  private final JsonNode root;

  private TokenizerVocab(JsonNode root) {
    this.root = root;
    int largest = -1;
    JsonNode vocab = root.path("model").path("vocab");
    if (vocab.isObject()) { // WordPiece, BPE, WordLevel: token -> id
      for (Iterator<JsonNode> ids = vocab.elements(); ids.hasNext(); ) {
        largest = Math.max(largest, ids.next().asInt());
      }
    } else if (vocab.isArray()) { // Unigram: [[piece, score], …], id = index
      largest = vocab.size() - 1;
    }
    for (JsonNode added : root.path("added_tokens")) {
      largest = Math.max(largest, added.path("id").asInt(-1));
    }
    if (largest < 0) {
      throw new IllegalArgumentException("tokenizer.json has no model.vocab and no added_tokens");
    }
    this.size = largest + 1;
  }

  /** Reads the vocabulary of a tokenizer.json. */
  public static TokenizerVocab of(byte[] tokenizerJson) {
    try {
      return new TokenizerVocab(JSON.readTree(tokenizerJson));
    } catch (IOException e) {
      throw new IllegalArgumentException("not a tokenizer.json: " + e.getMessage(), e);
    }
  }

  /** One more than the largest id the tokenizer can produce. */
  public int size() {
    return size;
  }

  /**
   * The id of the first of {@code tokens} that the tokenizer knows, as an added token or in its
   * vocabulary: {@code ("</s>", "<|endoftext|>", "[SEP]")} finds the end-of-text token of most
   * families.
   */
  public int firstKnown(String... tokens) {
    for (String token : tokens) {
      for (JsonNode added : root.path("added_tokens")) {
        if (token.equals(added.path("content").asText())) {
          return added.path("id").asInt();
        }
      }
      JsonNode vocab = root.path("model").path("vocab");
      if (vocab.isObject() && vocab.has(token)) {
        return vocab.get(token).asInt();
      }
    }
    throw new IllegalArgumentException(
        "tokenizer.json has none of the tokens " + String.join(", ", tokens));
  }

  /**
   * The id that ends a document in packed training text: the first of {@code <|endoftext|>}, {@code
   * </s>}, {@code <eos>} and {@code [SEP]} the vocabulary has. Training and shard building both
   * take it from here, so a model and the shards it trains on agree.
   */
  public int eosId() {
    return firstKnown("<|endoftext|>", "</s>", "<eos>", "[SEP]");
  }

  /** The id that pads a packed sequence: the first of {@code <pad>}, {@code [PAD]}, then EOS. */
  public int padId() {
    return firstKnown("<pad>", "[PAD]", "<|endoftext|>", "</s>");
  }
}
