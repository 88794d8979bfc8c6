package dev.infuse.udfs.maporl;

/**
 * One agent's reward at one turn: {@code reward = base + bonus}.
 *
 * @param score the verifier score it came from
 * @param correct the correctness the incentives used
 * @param base the horizon-and-share reward (the reference's {@code score_rule})
 * @param bonus the incentive bonus (its {@code bonus_rule}); 0 with incentives off
 * @param reward base + bonus
 */
public record TurnReward(
    String agentId,
    int turn,
    double score,
    boolean correct,
    double base,
    double bonus,
    double reward) {}
