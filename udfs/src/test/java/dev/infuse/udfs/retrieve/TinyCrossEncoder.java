package dev.infuse.udfs.retrieve;

import dev.infuse.udfs.lm.TorchScriptArchive;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * A cross-encoder built for tests, without Python or torch: a hand-written TorchScript module
 * ({@link TorchScriptArchive}) beside all-MiniLM-L6-v2's BERT {@code tokenizer.json}. Its score of
 * a pair is a known function of the input ids: the number of (query token, passage token) pairs
 * with the same id, where the query segment is {@code [CLS] query [SEP]} (type 0) and the passage
 * segment {@code passage [SEP]} (type 1). For texts of whole-word tokens that is {@link #expected}:
 * the sum over words of (count in query) x (count in passage), plus 1 for the two [SEP]s.
 */
public final class TinyCrossEncoder {
  private static final String CLASS_NAME = "TokenOverlap";

  private TinyCrossEncoder() {}

  /**
   * Writes model.pt, tokenizer.json and a tokenizer_config.json with {@code model_max_length} into
   * {@code dir}, and returns {@code dir}.
   */
  public static Path write(Path dir, int modelMaxLength) throws IOException {
    Files.createDirectories(dir);
    String source =
        String.join(
            "\n",
            "class " + CLASS_NAME + "(Module):",
            "  __parameters__ = []",
            "  __buffers__ = []",
            "  training : bool",
            "  def forward(self: __torch__." + CLASS_NAME + ",",
            "    input_ids: Tensor,",
            "    attention_mask: Tensor,",
            "    token_type_ids: Tensor) -> Tensor:",
            "    query = torch.mul(attention_mask, torch.rsub(token_type_ids, 1))",
            "    passage = torch.mul(attention_mask, token_type_ids)",
            "    same = torch.eq(torch.unsqueeze(input_ids, 2), torch.unsqueeze(input_ids, 1))",
            "    pairs = torch.mul(torch.mul(same, torch.unsqueeze(query, 2)),"
                + " torch.unsqueeze(passage, 1))",
            "    return torch.to(torch.unsqueeze(torch.sum(pairs, [1, 2]), 1), 6)",
            "");
    TorchScriptArchive.writeModule(dir.resolve("model.pt"), CLASS_NAME, source);
    try (InputStream in =
        TinyCrossEncoder.class
            .getClassLoader()
            .getResourceAsStream("all-minilm-l6-v2-tokenizer.json")) {
      Files.write(dir.resolve("tokenizer.json"), in.readAllBytes());
    }
    Files.writeString(
        dir.resolve("tokenizer_config.json"), "{\"model_max_length\": " + modelMaxLength + "}");
    return dir;
  }

  /** The model's score for texts of whole lower-case words (each one WordPiece token). */
  public static float expected(String query, String passage) {
    Map<String, Integer> queryCounts = counts(query);
    int score = 1; // [SEP] of the query segment matches [SEP] of the passage segment
    for (Map.Entry<String, Integer> word : counts(passage).entrySet()) {
      score += word.getValue() * queryCounts.getOrDefault(word.getKey(), 0);
    }
    return score;
  }

  private static Map<String, Integer> counts(String text) {
    Map<String, Integer> counts = new HashMap<>();
    for (String word : text.toLowerCase(Locale.ROOT).trim().split("\\s+")) {
      if (!word.isEmpty()) {
        counts.merge(word, 1, Integer::sum);
      }
    }
    return counts;
  }
}
