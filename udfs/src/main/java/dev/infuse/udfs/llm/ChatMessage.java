package dev.infuse.udfs.llm;

/** One chat message. @param role system, user or assistant */
public record ChatMessage(String role, String content) {}
