package dev.infuse.udfs.decontam;

import java.util.List;

/**
 * What decontamination did to one training text.
 *
 * @param text the text to keep: the original when unchanged, the shortened text, or null when
 *     dropped
 * @param outcome unchanged, shortened, dropped by {@code drop_row}, or dropped because removal left
 *     no word in it
 * @param hits every benchmark n-gram found, with offsets into the original text
 * @param removed the merged spans cut out of the original text (empty unless shortened or emptied)
 */
public record DecontaminatedText(
    String text, Outcome outcome, List<ContaminationHit> hits, List<CharSpan> removed) {
  /** The fate of a row; {@link #action()} is the value the hits table records for its hits. */
  public enum Outcome {
    UNCHANGED(null),
    SHORTENED("remove_span"),
    DROPPED("drop_row"),
    EMPTIED("drop_row_emptied");

    private final String action;

    Outcome(String action) {
      this.action = action;
    }

    /**
     * remove_span, drop_row or drop_row_emptied (remove_span left no word); null when unchanged.
     */
    public String action() {
      return action;
    }

    public boolean keepsRow() {
      return this == UNCHANGED || this == SHORTENED;
    }
  }

  /** Characters cut from the original text (all of them when the row is dropped). */
  public int removedChars() {
    return removed.stream().mapToInt(CharSpan::length).sum();
  }
}
