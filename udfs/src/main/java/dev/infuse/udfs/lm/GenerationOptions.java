package dev.infuse.udfs.lm;

import java.util.List;

/**
 * How one row is generated.
 *
 * @param maxNewTokens the most tokens to generate; reaching it ends the row with {@code length}
 * @param temperature 0 for greedy (argmax), otherwise logits are divided by it before sampling
 * @param topP nucleus mass in (0, 1]; 1 samples from the whole distribution
 * @param seed seeds the row's own random stream, so its output does not depend on the other rows
 * @param stop strings that end the row when they appear in its decoded text; the text is cut before
 *     the first one
 */
public record GenerationOptions(
    int maxNewTokens, double temperature, double topP, long seed, List<String> stop) {
  public GenerationOptions {
    stop = stop == null ? List.of() : List.copyOf(stop);
    if (maxNewTokens < 0) {
      throw new IllegalArgumentException(
          "max new tokens: got " + maxNewTokens + ", expected 0 or more");
    }
    if (!(temperature >= 0) || Double.isInfinite(temperature)) {
      throw new IllegalArgumentException(
          "temperature: got " + temperature + ", expected a finite value >= 0");
    }
    if (!(topP > 0 && topP <= 1)) {
      throw new IllegalArgumentException("top_p: got " + topP + ", expected a value in (0, 1]");
    }
    for (String s : stop) {
      if (s == null || s.isEmpty()) {
        throw new IllegalArgumentException(
            "stop: got an empty stop string, expected non-empty strings");
      }
    }
  }

  /** Greedy decoding of at most {@code maxNewTokens}, no stop strings. */
  public static GenerationOptions greedy(int maxNewTokens) {
    return new GenerationOptions(maxNewTokens, 0, 1, 0, List.of());
  }

  /** Whether the next token is the argmax rather than a sample. */
  public boolean isGreedy() {
    return temperature == 0;
  }
}
