package dev.infuse.udfs.decontam;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Finds benchmark n-grams in training texts and removes them (mode {@code remove_span}) or marks
 * the text for dropping (mode {@code drop_row}).
 *
 * <p>Scanning: the text's {@link NormalizedWords} are hashed in every window of each length the
 * index holds (n, and the lengths of short whole benchmark texts) and looked up; each (window,
 * question) pair is one {@link ContaminationHit}, with the window's first and last word mapped back
 * to offsets in the original text.
 *
 * <p>Removal: each hit's span is widened by {@code marginChars} on both sides (clamped to the
 * text), then outwards to the nearest word boundary so no word is left cut in half; overlapping or
 * touching spans are merged and cut out, and the remaining pieces are joined as they are. Because
 * cuts end on word boundaries, two words are never glued together. A text left without a single
 * word (only blanks or punctuation) is dropped.
 */
public final class Decontaminator implements Serializable {
  private static final long serialVersionUID = 1L;

  private final BenchmarkNgramIndex index;
  private final DecontaminationSettings settings;

  public Decontaminator(BenchmarkNgramIndex index, DecontaminationSettings settings) {
    if (index.ngramWords() != settings.ngramWords()
        || index.minShortWords() != settings.minShortWords()) {
      throw new IllegalArgumentException(
          "decontamination: index built with ngram_words="
              + index.ngramWords()
              + ", min_short_words="
              + index.minShortWords()
              + ", expected the settings' "
              + settings.ngramWords()
              + ", "
              + settings.minShortWords());
    }
    this.index = index;
    this.settings = settings;
  }

  public DecontaminationSettings settings() {
    return settings;
  }

  /** Every benchmark n-gram in {@code text}, ordered by position. */
  public List<ContaminationHit> scan(String text) {
    List<ContaminationHit> hits = new ArrayList<>();
    List<NormalizedWords.Word> words = NormalizedWords.of(text);
    long[] wordHashes = NgramHash.words(words);
    for (int length : index.windowLengths()) {
      for (int i = 0; i + length <= words.size(); i++) {
        List<String> questionIds = index.questionIds(NgramHash.window(wordHashes, i, length));
        if (questionIds.isEmpty()) {
          continue;
        }
        String ngram = join(words, i, length);
        int start = words.get(i).charStart();
        int end = words.get(i + length - 1).charEnd();
        for (String questionId : questionIds) {
          hits.add(new ContaminationHit(questionId, ngram, start, end));
        }
      }
    }
    hits.sort(
        Comparator.comparingInt(ContaminationHit::charStart)
            .thenComparingInt(ContaminationHit::charEnd)
            .thenComparing(ContaminationHit::questionId));
    return hits;
  }

  /** Scans {@code text} and applies the mode. */
  public DecontaminatedText clean(String text) {
    List<ContaminationHit> hits = scan(text);
    if (hits.isEmpty()) {
      return new DecontaminatedText(text, DecontaminatedText.Outcome.UNCHANGED, hits, List.of());
    }
    if (settings.mode() == DecontaminationMode.DROP_ROW) {
      return new DecontaminatedText(
          null, DecontaminatedText.Outcome.DROPPED, hits, List.of(new CharSpan(0, text.length())));
    }
    List<CharSpan> removed = removalSpans(text, hits, settings.marginChars());
    StringBuilder kept = new StringBuilder(text.length());
    int at = 0;
    for (CharSpan span : removed) {
      kept.append(text, at, span.start());
      at = span.end();
    }
    kept.append(text, at, text.length());
    String cleaned = kept.toString();
    // Punctuation and spaces alone are no training text.
    if (cleaned.codePoints().noneMatch(Decontaminator::isWordChar)) {
      return new DecontaminatedText(null, DecontaminatedText.Outcome.EMPTIED, hits, removed);
    }
    return new DecontaminatedText(cleaned, DecontaminatedText.Outcome.SHORTENED, hits, removed);
  }

  /** The hits' spans widened by {@code margin} and to word boundaries, merged, in order. */
  static List<CharSpan> removalSpans(String text, List<ContaminationHit> hits, int margin) {
    List<CharSpan> widened = new ArrayList<>();
    for (ContaminationHit hit : hits) {
      int start = Math.max(0, hit.charStart() - margin);
      int end = Math.min(text.length(), hit.charEnd() + margin);
      widened.add(new CharSpan(wordStartAtOrBefore(text, start), wordEndAtOrAfter(text, end)));
    }
    widened.sort(Comparator.comparingInt(CharSpan::start));
    List<CharSpan> merged = new ArrayList<>();
    CharSpan current = null;
    for (CharSpan span : widened) {
      if (current != null && span.start() <= current.end()) {
        current = new CharSpan(current.start(), Math.max(current.end(), span.end()));
      } else {
        if (current != null) {
          merged.add(current);
        }
        current = span;
      }
    }
    if (current != null) {
      merged.add(current);
    }
    return merged;
  }

  // Moves a cut that falls inside a word back to the word's start.
  private static int wordStartAtOrBefore(String text, int at) {
    if (at > 0 && at < text.length() && Character.isLowSurrogate(text.charAt(at))) {
      at--;
    }
    while (at > 0
        && at < text.length()
        && isWordChar(text.codePointAt(at))
        && isWordChar(text.codePointBefore(at))) {
      at -= Character.charCount(text.codePointBefore(at));
    }
    return at;
  }

  // Moves a cut that falls inside a word forward to the word's end.
  private static int wordEndAtOrAfter(String text, int at) {
    if (at > 0 && at < text.length() && Character.isLowSurrogate(text.charAt(at))) {
      at++;
    }
    while (at > 0
        && at < text.length()
        && isWordChar(text.codePointAt(at))
        && isWordChar(text.codePointBefore(at))) {
      at += Character.charCount(text.codePointAt(at));
    }
    return at;
  }

  private static boolean isWordChar(int codePoint) {
    return Character.isLetterOrDigit(codePoint);
  }

  private static String join(List<NormalizedWords.Word> words, int from, int count) {
    StringBuilder ngram = new StringBuilder();
    for (int i = from; i < from + count; i++) {
      if (i > from) {
        ngram.append(' ');
      }
      ngram.append(words.get(i).text());
    }
    return ngram.toString();
  }
}
