package dev.infuse.udfs.generate;

/** One generated question with its answer. */
public record QaPair(String question, String answer) {}
