package dev.infuse.udfs.lm.rl;

import ai.djl.Device;
import ai.djl.ndarray.NDManager;
import dev.infuse.udfs.lm.CharTokenizer;
import dev.infuse.udfs.lm.DecoderLm;
import dev.infuse.udfs.lm.LmConfig;
import java.nio.charset.StandardCharsets;
import java.util.List;

/** A character-level model small enough for RL tests on two shared cores. */
final class RlFixtures {
  private RlFixtures() {}

  /** One layer, width 16, two heads, 32 positions, over {@link CharTokenizer}'s 97 ids. */
  static LmConfig config() {
    return new LmConfig(
        LmConfig.INFUSE_DECODER,
        CharTokenizer.VOCAB_SIZE,
        1,
        16,
        2,
        32,
        2,
        CharTokenizer.EOS,
        CharTokenizer.EOS);
  }

  static DecoderLm model(long seed) {
    return DecoderLm.create(
        config(), CharTokenizer.json().getBytes(StandardCharsets.UTF_8), Device.cpu(), seed);
  }

  static int[] ids(String text) {
    int[] ids = new int[text.length()];
    for (int i = 0; i < ids.length; i++) {
      ids[i] = CharTokenizer.id(text.charAt(i));
    }
    return ids;
  }

  /** The summed log-probability of {@code response} after {@code prompt} under {@code model}. */
  static double logprob(DecoderLm model, String prompt, String response) {
    try (NDManager manager = NDManager.newBaseManager("PyTorch")) {
      SequenceBatch batch =
          new SequenceBatch(List.of(ids(prompt)), List.of(ids(response)), 0, manager);
      double[] perToken =
          batch
              .extract(
                  batch.nextTokenLogprobs(
                      model.forwardTraining(batch.tokens, batch.positions, batch.attention)),
                  SequenceBatch.PREDICTING)[0];
      double sum = 0;
      for (double x : perToken) {
        sum += x;
      }
      return sum;
    }
  }
}
