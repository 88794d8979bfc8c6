package dev.infuse.udfs.decontam;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;

/**
 * How decontamination matches and what it removes.
 *
 * @param ngramWords n, the words per n-gram (13 by default: GPT-3's choice, long enough that common
 *     phrases do not match, short enough to catch a paraphrase-free copy of a question)
 * @param minShortWords a benchmark text shorter than n words is protected as one whole-text n-gram
 *     only if it has at least this many words (8 by default: shorter options such as "the old man"
 *     or "42" occur in ordinary prose and would cut innocent text)
 * @param mode remove the matched spans or drop the row
 * @param marginChars characters removed on each side of a matched span (200 by default, as GPT-3
 *     and lm-eval-harness do), then widened further so no word is cut in half
 */
public record DecontaminationSettings(
    int ngramWords, int minShortWords, DecontaminationMode mode, int marginChars)
    implements Serializable {
  public static final int DEFAULT_NGRAM_WORDS = 13;
  public static final int DEFAULT_MIN_SHORT_WORDS = 8;
  public static final int DEFAULT_MARGIN_CHARS = 200;

  public DecontaminationSettings {
    List<String> problems = problems(ngramWords, minShortWords, mode, marginChars);
    if (!problems.isEmpty()) {
      throw new IllegalArgumentException("decontamination " + String.join("; ", problems));
    }
  }

  /**
   * Every invalid value of these settings, as "key: got X, expected Y" with the config's key names;
   * empty when valid. The config checks with this before it builds the settings.
   */
  public static List<String> problems(
      int ngramWords, int minShortWords, DecontaminationMode mode, int marginChars) {
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
    return problems;
  }

  /** 13-grams, short texts from 8 words, remove_span with a 200-character margin. */
  public static DecontaminationSettings defaults() {
    return new DecontaminationSettings(
        DEFAULT_NGRAM_WORDS,
        DEFAULT_MIN_SHORT_WORDS,
        DecontaminationMode.REMOVE_SPAN,
        DEFAULT_MARGIN_CHARS);
  }

  public DecontaminationSettings withNgramWords(int n) {
    return new DecontaminationSettings(n, Math.min(minShortWords, n), mode, marginChars);
  }

  public DecontaminationSettings withMode(DecontaminationMode newMode) {
    return new DecontaminationSettings(ngramWords, minShortWords, newMode, marginChars);
  }

  public DecontaminationSettings withMarginChars(int margin) {
    return new DecontaminationSettings(ngramWords, minShortWords, mode, margin);
  }
}
