package dev.infuse.udfs.maporl;

/**
 * One earlier turn of an agent, as it sees it again: what it was asked and what it answered.
 *
 * @param userMessage the user message of that turn
 * @param response the agent's response to it
 */
public record AgentTurn(String userMessage, String response) {}
