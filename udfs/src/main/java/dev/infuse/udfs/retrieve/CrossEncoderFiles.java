package dev.infuse.udfs.retrieve;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.infuse.udfs.embed.EmbeddingModelFiles;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Set;

/**
 * A local Hugging Face cross-encoder ({@code retrieve.rerank}): a directory holding {@code
 * model.onnx} (ONNX Runtime) or {@code model.pt} (TorchScript, PyTorch engine) beside its {@code
 * tokenizer.json}. Nothing is downloaded. The longest (query, passage) pair the model takes is read
 * from the directory: {@code tokenizer_config.json}'s {@code model_max_length}, else {@code
 * tokenizer.json}'s truncation {@code max_length}, else {@code config.json}'s {@code
 * max_position_embeddings} (less the 2 offset positions of RoBERTa-family models), else {@value
 * #FALLBACK_MAX_TOKENS}.
 *
 * @param modelId {@code <directory name>@<12 hex of the model file's sha256>}, stored on every
 *     reranked row, so a changed model file shows
 * @param engine {@link EmbeddingModelFiles#ONNX_RUNTIME} or {@link EmbeddingModelFiles#PYTORCH}
 * @param maxTokens the model's longest input, special tokens included
 */
public record CrossEncoderFiles(
    String modelId, String engine, Path modelFile, byte[] tokenizerJson, int maxTokens) {
  /** The model's length when its files do not say (BERT's). */
  public static final int FALLBACK_MAX_TOKENS = 512;

  /** model_max_length values above this are Hugging Face's "no limit" sentinel, not a length. */
  private static final long SANE_MAX_TOKENS = 1_000_000;

  private static final Set<String> ROBERTA_FAMILY =
      Set.of("roberta", "xlm-roberta", "camembert", "xlm-roberta-xl");
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String EXPECTED =
      "expected a local directory holding model.onnx or model.pt beside tokenizer.json"
          + " (a Hugging Face cross-encoder exported to ONNX or TorchScript)";

  /**
   * Resolves {@code retrieve.rerank}; fails naming the path and what was expected there.
   *
   * @param maxTokens the longest input to feed, or 0 for the model's own (read from its files)
   */
  public static CrossEncoderFiles resolve(String model, int maxTokens) {
    if (model == null || model.isBlank()) {
      throw new IllegalArgumentException("retrieve.rerank: got nothing, " + EXPECTED);
    }
    Path dir = Path.of(model.trim()).toAbsolutePath().normalize();
    if (!Files.isDirectory(dir)) {
      throw new IllegalArgumentException(
          "retrieve.rerank: got " + model.trim() + ", which is not a directory; " + EXPECTED);
    }
    Path onnx = dir.resolve("model.onnx");
    Path pt = dir.resolve("model.pt");
    Path modelFile = Files.isRegularFile(onnx) ? onnx : Files.isRegularFile(pt) ? pt : null;
    if (modelFile == null) {
      throw new IllegalArgumentException(
          "retrieve.rerank: " + dir + " holds neither model.onnx nor model.pt; " + EXPECTED);
    }
    Path tokenizer = dir.resolve("tokenizer.json");
    if (!Files.isRegularFile(tokenizer)) {
      throw new IllegalArgumentException(
          "retrieve.rerank: " + dir + " has no tokenizer.json; " + EXPECTED);
    }
    try {
      byte[] tokenizerJson = Files.readAllBytes(tokenizer);
      String name = dir.getFileName() == null ? "model" : dir.getFileName().toString();
      return new CrossEncoderFiles(
          name + "@" + sha256(modelFile).substring(0, 12),
          modelFile.equals(onnx) ? EmbeddingModelFiles.ONNX_RUNTIME : EmbeddingModelFiles.PYTORCH,
          modelFile,
          tokenizerJson,
          maxTokens > 0 ? maxTokens : modelMaxTokens(dir, tokenizerJson));
    } catch (IOException e) {
      throw new UncheckedIOException("retrieve.rerank: cannot read " + dir, e);
    }
  }

  /** The model's longest input as its files state it, in the order the class comment gives. */
  static int modelMaxTokens(Path dir, byte[] tokenizerJson) throws IOException {
    JsonNode tokenizerConfig = readJson(dir.resolve("tokenizer_config.json"));
    if (tokenizerConfig != null && tokenizerConfig.path("model_max_length").isNumber()) {
      double length = tokenizerConfig.path("model_max_length").asDouble();
      if (length >= 1 && length <= SANE_MAX_TOKENS) {
        return (int) length;
      }
    }
    JsonNode truncation = JSON.readTree(tokenizerJson).path("truncation");
    if (truncation.path("max_length").canConvertToInt()
        && truncation.path("max_length").asInt() >= 1) {
      return truncation.path("max_length").asInt();
    }
    JsonNode config = readJson(dir.resolve("config.json"));
    if (config != null && config.path("max_position_embeddings").canConvertToInt()) {
      int positions = config.path("max_position_embeddings").asInt();
      int offset = ROBERTA_FAMILY.contains(config.path("model_type").asText("")) ? 2 : 0;
      if (positions - offset >= 1) {
        return positions - offset;
      }
    }
    return FALLBACK_MAX_TOKENS;
  }

  private static JsonNode readJson(Path file) throws IOException {
    if (!Files.isRegularFile(file)) {
      return null;
    }
    try {
      return JSON.readTree(file.toFile());
    } catch (IOException e) {
      throw new IllegalArgumentException(
          "retrieve.rerank: " + file + " is not valid JSON (" + e.getMessage() + ")", e);
    }
  }

  private static String sha256(Path file) throws IOException {
    try (InputStream in = Files.newInputStream(file)) {
      MessageDigest digest = MessageDigest.getInstance("SHA-256");
      byte[] buffer = new byte[1 << 16];
      for (int n; (n = in.read(buffer)) > 0; ) {
        digest.update(buffer, 0, n);
      }
      return HexFormat.of().formatHex(digest.digest());
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
