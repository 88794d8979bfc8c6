package dev.infuse.udfs.decontam;

import dev.infuse.udfs.common.EnumNames;
import java.util.List;

/**
 * What decontamination did to one training text.
 *
 * @param outcome the text's fate
 * @param pieces the texts to train on: the original alone when unchanged, the clean pieces (each
 *     its own training text, never rejoined) when shortened, none when dropped
 * @param kept where each piece lies in the original text, in order
 * @param hits every benchmark n-gram found, with offsets into the original text and what it did
 */
public record DecontaminatedText(
    Outcome outcome, List<String> pieces, List<CharSpan> kept, List<Logged> hits) {

  /** The fate of a text. */
  public enum Outcome {
    /** No contaminating hit (there may be exempt ones): kept whole. */
    UNCHANGED(null),
    /** Cut: the clean pieces of at least {@code min_piece_chars} are kept, each on its own. */
    SHORTENED(Action.CUT),
    /** Mode {@code drop_row}: dropped on its first contaminating hit. */
    DROPPED(Action.DROPPED_ROW),
    /** More contaminating n-gram windows than {@code too_dirty_cutoff}: dropped whole. */
    TOO_DIRTY(Action.DROPPED_TOO_DIRTY),
    /** Cut, but no clean piece of {@code min_piece_chars} was left: dropped. */
    EMPTIED(Action.DROPPED_NO_PIECE),
    /** A synthetic QA pair whose question matches a benchmark question: dropped. */
    SYNTHETIC_QA(Action.DROPPED_SYNTHETIC_QA);

    private final Action action;

    Outcome(Action action) {
      this.action = action;
    }

    /** What the text's contaminating hits are logged with; null when there are none. */
    public Action action() {
      return action;
    }

    public boolean keepsRow() {
      return this == UNCHANGED || this == SHORTENED;
    }

    /** The name in tables and counts. */
    public String id() {
      return EnumNames.id(this);
    }
  }

  /** What a hit did, as the {@code decontamination_hits.action} column records it. */
  public enum Action {
    /** Its span, widened by the margin, was cut out of the text. */
    CUT,
    /** The text was dropped (mode drop_row). */
    DROPPED_ROW,
    /** The text had more than too_dirty_cutoff contaminated n-grams and was dropped. */
    DROPPED_TOO_DIRTY,
    /** The text was cut and no clean piece of min_piece_chars was left, so it was dropped. */
    DROPPED_NO_PIECE,
    /** The synthetic QA pair's question matches the benchmark question: the pair was dropped. */
    DROPPED_SYNTHETIC_QA,
    /** A quote of the question's own source document, exempt in this text: nothing was done. */
    EXEMPT_SOURCE_QUOTE;

    /** The name in the hits table. */
    public String id() {
      return EnumNames.id(this);
    }
  }

  /** One hit and what it did. */
  public record Logged(ContaminationHit hit, Action action) {}

  /** Characters of the original text in no kept piece: all of them when the text is dropped. */
  public int removedChars(String original) {
    return original == null
        ? 0
        : original.length() - kept.stream().mapToInt(CharSpan::length).sum();
  }
}
