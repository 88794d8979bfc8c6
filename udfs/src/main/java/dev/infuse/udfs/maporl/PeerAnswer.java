package dev.infuse.udfs.maporl;

/**
 * Another agent's latest response, shown to an agent in the discussion.
 *
 * @param agentId the other agent (for the caller's bookkeeping; the prompt numbers peers 1, 2, … in
 *     list order, as the reference does)
 * @param response its response at the previous turn
 * @param score its verifier score in [0, 1], or null when there is none (no feedback)
 */
public record PeerAnswer(String agentId, String response, Double score) {}
