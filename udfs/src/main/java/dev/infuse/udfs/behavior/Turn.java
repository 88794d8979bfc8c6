package dev.infuse.udfs.behavior;

import java.util.Objects;

/**
 * One turn of a behaviour task's context: who speaks and what they say. A clinical note is a single
 * turn spoken by {@link #NOTE}; a dialogue keeps its own speakers ({@code doctor}, {@code patient},
 * {@code nurse}, …).
 */
public record Turn(String speaker, String text) {
  /** The speaker of a context that is a written note rather than a conversation. */
  public static final String NOTE = "note";

  public Turn {
    Objects.requireNonNull(speaker, "speaker");
    Objects.requireNonNull(text, "text");
    if (speaker.isBlank()) {
      throw new IllegalArgumentException("speaker: got a blank name, expected who speaks");
    }
  }
}
