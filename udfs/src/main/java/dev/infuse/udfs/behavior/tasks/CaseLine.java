package dev.infuse.udfs.behavior.tasks;

import java.util.Objects;

/**
 * One line of a clinical case, in case order: a written line under a section heading (speaker
 * null), or a dialogue turn (speaker set, section null).
 */
public record CaseLine(String section, String speaker, String text) {
  public CaseLine {
    Objects.requireNonNull(text, "text");
    if ((section == null) == (speaker == null)) {
      throw new IllegalArgumentException(
          "case line: got section " + section + " and speaker " + speaker + ", expected one");
    }
  }

  public static CaseLine written(String section, String text) {
    return new CaseLine(section, null, text);
  }

  public static CaseLine spoken(String speaker, String text) {
    return new CaseLine(null, speaker, text);
  }

  public boolean isTurn() {
    return speaker != null;
  }

  public CaseLine withText(String changed) {
    return new CaseLine(section, speaker, changed);
  }
}
