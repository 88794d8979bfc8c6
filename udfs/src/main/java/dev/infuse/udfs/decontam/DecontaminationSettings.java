package dev.infuse.udfs.decontam;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;

/**
 * How decontamination matches and what it removes. The defaults follow lm-evaluation-harness's
 * Janitor ({@code lm_eval/decontamination/janitor.py}): 13-grams, a 200-character window, more than
 * 10 hits drop the text, clean pieces under 200 characters are dropped.
 *
 * @param ngramWords n, the words per n-gram (13 by default: GPT-3's choice, long enough that common
 *     phrases do not match, short enough to catch a paraphrase-free copy of a question)
 * @param minShortWords a benchmark text shorter than n words is protected as one whole-text n-gram
 *     only if it has at least this many words (8 by default: shorter options such as "the old man"
 *     or "42" occur in ordinary prose and would cut innocent text)
 * @param mode remove the matched spans or drop the row
 * @param marginChars characters removed on each side of a matched span (200 by default, as GPT-3
 *     and the Janitor do), then widened further so no word is cut in half
 * @param sourceQuotes where n-grams that quote the question's own document are exempt
 * @param tooDirtyCutoff a text with more contaminated n-gram windows than this is dropped whole
 *     (the Janitor's {@code too_dirty_cutoff}, 10)
 * @param minPieceChars a clean piece left between cuts is kept, as its own training text, only if
 *     it has at least this many characters (the Janitor's {@code minimum_slice_length}, 200)
 */
public record DecontaminationSettings(
    int ngramWords,
    int minShortWords,
    DecontaminationMode mode,
    int marginChars,
    SourceQuotes sourceQuotes,
    int tooDirtyCutoff,
    int minPieceChars)
    implements Serializable {
  public static final int DEFAULT_NGRAM_WORDS = 13;
  public static final int DEFAULT_MIN_SHORT_WORDS = 8;
  public static final int DEFAULT_MARGIN_CHARS = 200;
  public static final SourceQuotes DEFAULT_SOURCE_QUOTES = SourceQuotes.EXEMPT_IN_CORPUS;
  public static final int DEFAULT_TOO_DIRTY_CUTOFF = 10;
  public static final int DEFAULT_MIN_PIECE_CHARS = 200;

  public DecontaminationSettings {
    List<String> problems =
        problems(
            ngramWords,
            minShortWords,
            mode,
            marginChars,
            sourceQuotes,
            tooDirtyCutoff,
            minPieceChars);
    if (!problems.isEmpty()) {
      throw new IllegalArgumentException("decontamination " + String.join("; ", problems));
    }
  }

  /**
   * Every invalid value of these settings, as "key: got X, expected Y" with the config's key names;
   * empty when valid. The config checks with this before it builds the settings.
   */
  public static List<String> problems(
      int ngramWords,
      int minShortWords,
      DecontaminationMode mode,
      int marginChars,
      SourceQuotes sourceQuotes,
      int tooDirtyCutoff,
      int minPieceChars) {
    List<String> problems = new ArrayList<>();
    if (ngramWords < 1) {
      problems.add("ngram_words: got " + ngramWords + ", expected >= 1");
    }
    if (minShortWords < 1 || minShortWords > ngramWords) {
      problems.add(
          "min_short_words: got "
              + minShortWords
              + ", expected 1.."
              + ngramWords
              + " (at most ngram_words)");
    }
    if (mode == null) {
      problems.add("mode: missing, expected remove_span or drop_row");
    }
    if (marginChars < 0) {
      problems.add("margin_chars: got " + marginChars + ", expected >= 0");
    }
    if (sourceQuotes == null) {
      problems.add(
          "source_quotes: missing, expected exempt_in_corpus, exempt_everywhere or not_exempt");
    }
    if (tooDirtyCutoff < 0) {
      problems.add(
          "too_dirty_cutoff: got "
              + tooDirtyCutoff
              + ", expected >= 0 (a text with more contaminated n-grams is dropped)");
    }
    if (minPieceChars < 1) {
      problems.add("min_piece_chars: got " + minPieceChars + ", expected >= 1");
    }
    return problems;
  }

  /**
   * 13-grams, short texts from 8 words, remove_span with a 200-character margin, quotes exempt in
   * their corpus, more than 10 hits drop a text, pieces under 200 characters dropped.
   */
  public static DecontaminationSettings defaults() {
    return new DecontaminationSettings(
        DEFAULT_NGRAM_WORDS,
        DEFAULT_MIN_SHORT_WORDS,
        DecontaminationMode.REMOVE_SPAN,
        DEFAULT_MARGIN_CHARS,
        DEFAULT_SOURCE_QUOTES,
        DEFAULT_TOO_DIRTY_CUTOFF,
        DEFAULT_MIN_PIECE_CHARS);
  }

  public DecontaminationSettings withNgramWords(int n) {
    return new DecontaminationSettings(
        n,
        Math.min(minShortWords, n),
        mode,
        marginChars,
        sourceQuotes,
        tooDirtyCutoff,
        minPieceChars);
  }

  public DecontaminationSettings withMode(DecontaminationMode newMode) {
    return new DecontaminationSettings(
        ngramWords,
        minShortWords,
        newMode,
        marginChars,
        sourceQuotes,
        tooDirtyCutoff,
        minPieceChars);
  }

  public DecontaminationSettings withMarginChars(int margin) {
    return new DecontaminationSettings(
        ngramWords, minShortWords, mode, margin, sourceQuotes, tooDirtyCutoff, minPieceChars);
  }

  public DecontaminationSettings withSourceQuotes(SourceQuotes quotes) {
    return new DecontaminationSettings(
        ngramWords, minShortWords, mode, marginChars, quotes, tooDirtyCutoff, minPieceChars);
  }

  public DecontaminationSettings withTooDirtyCutoff(int cutoff) {
    return new DecontaminationSettings(
        ngramWords, minShortWords, mode, marginChars, sourceQuotes, cutoff, minPieceChars);
  }

  public DecontaminationSettings withMinPieceChars(int chars) {
    return new DecontaminationSettings(
        ngramWords, minShortWords, mode, marginChars, sourceQuotes, tooDirtyCutoff, chars);
  }
}
