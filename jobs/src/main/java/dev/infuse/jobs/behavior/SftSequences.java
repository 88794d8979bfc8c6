package dev.infuse.jobs.behavior;

import dev.infuse.udfs.llm.ChatMessage;
import dev.infuse.udfs.llm.PlainChatTemplate;
import dev.infuse.udfs.text.TextTokenizer;
import java.util.Arrays;
import java.util.List;

/**
 * One SFT example as the DJL {@code train} job reads a shard row: the prompt in the djl backend's
 * plain chat format, then the target and EOS, cut or padded to a fixed length, with a loss mask
 * (every real token) and an answer mask (the target's tokens and EOS only), so that {@code train
 * --loss-on answer} learns the response alone. A long context loses its oldest tokens: the
 * question, the "Assistant:" cue and the whole target always fit, since the target is capped at
 * half the sequence.
 */
final class SftSequences {
  /** The rows of one example. */
  record Sequence(int[] inputIds, int[] lossMask, int[] answerMask, boolean truncated) {}

  private final TextTokenizer tokenizer;
  private final int length;
  private final int eos;
  private final int pad;

  SftSequences(TextTokenizer tokenizer, int length, int eos, int pad) {
    if (length < 8) {
      throw new IllegalArgumentException(
          "behavior.sft.sequence_length: got " + length + ", expected at least 8");
    }
    this.tokenizer = tokenizer;
    this.length = length;
    this.eos = eos;
    this.pad = pad;
  }

  /** {@code messages} ends with the assistant's target; the rest is the prompt. */
  Sequence of(List<ChatMessage> messages) {
    ChatMessage target = messages.get(messages.size() - 1);
    if (!"assistant".equals(target.role())) {
      throw new IllegalArgumentException(
          "messages: got a last role of " + target.role() + ", expected the assistant's target");
    }
    String prompt = PlainChatTemplate.render(messages.subList(0, messages.size() - 1));
    int[] promptIds = tokenizer.ids(prompt);
    int[] targetIds = tokenizer.ids(" " + target.content());
    int targetRoom = length / 2 - 1;
    boolean truncated = false;
    if (targetIds.length > targetRoom) {
      targetIds = Arrays.copyOf(targetIds, targetRoom);
      truncated = true;
    }
    int promptRoom = length - targetIds.length - 1;
    if (promptIds.length > promptRoom) {
      promptIds = Arrays.copyOfRange(promptIds, promptIds.length - promptRoom, promptIds.length);
      truncated = true;
    }
    int[] ids = new int[length];
    int[] loss = new int[length];
    int[] answer = new int[length];
    Arrays.fill(ids, pad);
    int at = 0;
    for (int id : promptIds) {
      loss[at] = 1;
      ids[at++] = id;
    }
    for (int id : targetIds) {
      loss[at] = 1;
      answer[at] = 1;
      ids[at++] = id;
    }
    loss[at] = 1;
    answer[at] = 1;
    ids[at] = eos;
    return new Sequence(ids, loss, answer, truncated);
  }
}
