package dev.infuse.udfs.lm.rl;

/**
 * One rollout to learn from: a prompt, the response the policy sampled for it, and its reward.
 *
 * @param id names the sample in error messages (for example question id, agent and turn)
 * @param promptIds the prompt's token ids; at least one (the first response token is predicted from
 *     the last prompt token)
 * @param responseIds the sampled response's token ids, at least one, without padding
 * @param score the scalar reward, credited at the last response token
 * @param advantage GRPO only: the sample's advantage (typically its score normalised within its
 *     group), applied to every response token; {@code NaN} for PPO, which computes its own
 */
public record RlSample(
    String id, int[] promptIds, int[] responseIds, double score, double advantage) {

  /** A PPO sample: no given advantage. */
  public static RlSample ppo(String id, int[] promptIds, int[] responseIds, double score) {
    return new RlSample(id, promptIds, responseIds, score, Double.NaN);
  }

  /** Prompt plus response tokens. */
  public int length() {
    return promptIds.length + responseIds.length;
  }
}
