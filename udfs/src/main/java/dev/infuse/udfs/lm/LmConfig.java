package dev.infuse.udfs.lm;

import java.util.ArrayList;
import java.util.List;

/**
 * The shape of a decoder-only model and its special tokens, stored as {@code config.json} in a
 * model directory beside {@code model.safetensors} and {@code tokenizer.json}.
 *
 * @param architecture {@code infuse-decoder} for Infuse's own DJL transformer, {@code torchscript}
 *     for an export loaded through {@code TorchScriptLm}
 * @param vocabSize rows of the token embedding; at least the tokenizer's vocabulary
 * @param layers transformer blocks
 * @param dModel hidden width
 * @param heads attention heads; must divide {@code dModel}
 * @param contextLength the most positions a sequence may have
 * @param ffnMultiplier the MLP's hidden width as a multiple of {@code dModel}
 * @param eosTokenId ends a document in packed training data and ends generation
 * @param padTokenId fills batch rows; never attended to and never in the loss
 */
public record LmConfig(
    String architecture,
    int vocabSize,
    int layers,
    int dModel,
    int heads,
    int contextLength,
    int ffnMultiplier,
    int eosTokenId,
    int padTokenId) {

  public static final String INFUSE_DECODER = "infuse-decoder";
  public static final String TORCHSCRIPT = "torchscript";

  /**
   * Every problem with these values, each naming the field and the expected value; empty when
   * valid.
   */
  public List<String> problems() {
    List<String> problems = new ArrayList<>();
    if (!INFUSE_DECODER.equals(architecture) && !TORCHSCRIPT.equals(architecture)) {
      problems.add(
          "architecture: got "
              + architecture
              + ", expected "
              + INFUSE_DECODER
              + " or "
              + TORCHSCRIPT);
    }
    positive(problems, "vocab_size", vocabSize);
    positive(problems, "context_length", contextLength);
    if (INFUSE_DECODER.equals(architecture)) {
      positive(problems, "layers", layers);
      positive(problems, "d_model", dModel);
      positive(problems, "heads", heads);
      positive(problems, "ffn_multiplier", ffnMultiplier);
      if (heads > 0 && dModel > 0 && dModel % heads != 0) {
        problems.add("heads: got " + heads + ", expected a divisor of d_model " + dModel);
      }
    }
    tokenId(problems, "eos_token_id", eosTokenId);
    tokenId(problems, "pad_token_id", padTokenId);
    return problems;
  }

  private void tokenId(List<String> problems, String name, int id) {
    if (id < 0 || id >= vocabSize) {
      problems.add(name + ": got " + id + ", expected 0.." + (vocabSize - 1));
    }
  }

  private static void positive(List<String> problems, String name, int value) {
    if (value <= 0) {
      problems.add(name + ": got " + value + ", expected a positive integer");
    }
  }
}
