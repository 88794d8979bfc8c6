package dev.infuse.jobs.maporl;

import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import java.util.Arrays;

/**
 * Texts to the token ids the RL update and the model verifier train and score on, in the model's
 * own tokenizer, without special tokens, cut to fit its context: the response keeps its first
 * tokens (at most context - 1), the prompt its last, so the answer and what it answers are kept.
 */
final class RlTexts {
  private RlTexts() {}

  static int[] ids(HuggingFaceTokenizer tokenizer, String text) {
    long[] ids = tokenizer.encode(text, false, false).getIds();
    int[] out = new int[ids.length];
    for (int i = 0; i < ids.length; i++) {
      out[i] = Math.toIntExact(ids[i]);
    }
    return out;
  }

  /** {prompt, response} cut to {@code context} positions together, each at least one token. */
  static int[][] fit(int[] prompt, int[] response, int context) {
    int[] kept = response.length > context - 1 ? Arrays.copyOf(response, context - 1) : response;
    int room = context - kept.length;
    int[] head =
        prompt.length > room
            ? Arrays.copyOfRange(prompt, prompt.length - room, prompt.length)
            : prompt;
    return new int[][] {head, kept};
  }
}
