package dev.infuse.udfs.maporl;

/**
 * One agent's parsed answer to one question at one turn.
 *
 * @param answer the parsed answer, or {@code invalid}
 * @param correct whether it is the gold answer
 */
public record AgentAnswer(
    String questionId, String agentId, int turn, String answer, boolean correct) {}
