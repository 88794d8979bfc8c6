package dev.infuse.udfs.maporl;

import java.util.Objects;

/**
 * One agent's verifier score at one turn of an episode.
 *
 * @param score the verifier score (the reference's {@code scores_turn_agent}); with a penalty (see
 *     {@link NonEosPenalty}) the penalty replaces it, as in the reference
 * @param correct whether the answer was right (the reference's {@code correctnesses_turn_agent},
 *     exact match with the gold answer); null means {@code score >= 0.5}
 */
public record TurnScore(String agentId, int turn, double score, Boolean correct) {
  public TurnScore {
    Objects.requireNonNull(agentId, "agentId");
    if (turn < 0) {
      throw new IllegalArgumentException("turn: got " + turn + ", expected >= 0");
    }
    if (Double.isNaN(score)) {
      throw new IllegalArgumentException("score: got NaN, expected a number");
    }
    if (correct == null) {
      correct = score >= 0.5;
    }
  }
}
