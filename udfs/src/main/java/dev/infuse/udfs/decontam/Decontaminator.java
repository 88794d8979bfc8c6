package dev.infuse.udfs.decontam;

import dev.infuse.udfs.decontam.DecontaminatedText.Action;
import dev.infuse.udfs.decontam.DecontaminatedText.Logged;
import dev.infuse.udfs.decontam.DecontaminatedText.Outcome;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Finds benchmark n-grams in training texts and decides, per text, what they do: nothing (quotes of
 * the source, exempt), cut, or drop. The rules, in the order they apply:
 *
 * <ol>
 *   <li><b>Scan.</b> The text's {@link NormalizedWords} are hashed in every window of each length
 *       the index holds (n, and the lengths of short whole benchmark texts) and looked up; each
 *       (window, question) pair is one {@link ContaminationHit}, with the window's first and last
 *       word mapped back to offsets in the original text.
 *   <li><b>Quotes of the source.</b> A hit whose n-gram also occurs in the question's own document
 *       is exempt where {@link DecontaminationSettings#sourceQuotes()} says so (by default in every
 *       text whose source document is in the question's corpus); it is logged as {@code
 *       exempt_source_quote} and does nothing else. Every other hit is contaminating.
 *   <li><b>Synthetic QA.</b> A synthetic QA pair is dropped ({@code dropped_synthetic_qa}) when its
 *       question holds a contaminating n-gram of a benchmark question's own text (not only of an
 *       option or answer), or when its question equals a benchmark question word for word after
 *       normalisation (which catches questions too short to have an n-gram; exemption does not
 *       apply to equality: a copied question is a copied question).
 *   <li><b>drop_row.</b> In that mode any contaminating hit drops the text.
 *   <li><b>Too dirty.</b> A text with more than {@code too_dirty_cutoff} distinct contaminated
 *       n-gram windows is dropped whole, as the Janitor does.
 *   <li><b>Cut.</b> Each contaminating hit's span is widened by {@code margin_chars} on both sides
 *       (clamped to the text), then outwards to whitespace so no word is cut in half; overlapping
 *       or touching spans merge. The pieces between cuts are trimmed of whitespace and kept, each
 *       as its own training text (never rejoined, so no sentence is stitched to a stranger), if
 *       they have at least {@code min_piece_chars} characters and a word; a text left with no piece
 *       is dropped ({@code dropped_no_piece}).
 * </ol>
 */
public final class Decontaminator implements Serializable {
  private static final long serialVersionUID = 2L;

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
        int slot = index.slot(NgramHash.window(wordHashes, i, length));
        if (slot < 0) {
          continue;
        }
        String ngram = join(words, i, length);
        int start = words.get(i).charStart();
        int end = words.get(i + length - 1).charEnd();
        for (int pair = index.pairsStart(slot); pair < index.pairsEnd(slot); pair++) {
          int question = index.pairQuestion(pair);
          byte flags = index.pairFlags(pair);
          hits.add(
              new ContaminationHit(
                  index.questionId(question),
                  ngram,
                  start,
                  end,
                  (flags & BenchmarkNgramIndex.QUESTION_TEXT) != 0,
                  (flags & BenchmarkNgramIndex.SOURCE_QUOTE) != 0,
                  index.questionCorpus(question)));
        }
      }
    }
    hits.sort(ORDER);
    return hits;
  }

  private static final Comparator<ContaminationHit> ORDER =
      Comparator.comparingInt(ContaminationHit::charStart)
          .thenComparingInt(ContaminationHit::charEnd)
          .thenComparing(ContaminationHit::questionId);

  /** {@link #clean(String, String, CharSpan)} for a text from outside every corpus (replay). */
  public DecontaminatedText clean(String text) {
    return clean(text, null, null);
  }

  /**
   * Scans {@code text} and applies the rules of this class.
   *
   * @param rowCorpus the corpus of the text's source document; null for replay and other external
   *     text
   * @param qaQuestion where the question of a synthetic QA pair lies in {@code text}; null for any
   *     other text
   */
  public DecontaminatedText clean(String text, String rowCorpus, CharSpan qaQuestion) {
    if (text == null) {
      return new DecontaminatedText(Outcome.UNCHANGED, List.of(), List.of(), List.of());
    }
    List<ContaminationHit> hits = scan(text);
    List<ContaminationHit> contaminating = new ArrayList<>();
    List<ContaminationHit> exempt = new ArrayList<>();
    for (ContaminationHit hit : hits) {
      if (hit.sourceQuote() && settings.sourceQuotes().exempts(hit.questionCorpus(), rowCorpus)) {
        exempt.add(hit);
      } else {
        contaminating.add(hit);
      }
    }
    if (qaQuestion != null) {
      List<ContaminationHit> equal = equalQuestions(text, qaQuestion, hits);
      contaminating.addAll(equal);
      if (!equal.isEmpty() || contaminating.stream().anyMatch(h -> asksIt(h, qaQuestion))) {
        return dropped(Outcome.SYNTHETIC_QA, contaminating, exempt);
      }
    }
    if (contaminating.isEmpty()) {
      return new DecontaminatedText(
          Outcome.UNCHANGED,
          List.of(text),
          List.of(new CharSpan(0, text.length())),
          logged(List.of(), null, exempt));
    }
    if (settings.mode() == DecontaminationMode.DROP_ROW) {
      return dropped(Outcome.DROPPED, contaminating, exempt);
    }
    Set<Long> windows = new HashSet<>();
    for (ContaminationHit hit : contaminating) {
      windows.add(((long) hit.charStart() << 32) | hit.charEnd());
    }
    if (windows.size() > settings.tooDirtyCutoff()) {
      return dropped(Outcome.TOO_DIRTY, contaminating, exempt);
    }
    List<CharSpan> kept = new ArrayList<>();
    int at = 0;
    for (CharSpan cut : removalSpans(text, contaminating, settings.marginChars())) {
      keepPiece(text, at, cut.start(), kept);
      at = cut.end();
    }
    keepPiece(text, at, text.length(), kept);
    if (kept.isEmpty()) {
      return dropped(Outcome.EMPTIED, contaminating, exempt);
    }
    List<String> pieces = kept.stream().map(s -> text.substring(s.start(), s.end())).toList();
    return new DecontaminatedText(
        Outcome.SHORTENED, pieces, kept, logged(contaminating, Action.CUT, exempt));
  }

  private static DecontaminatedText dropped(
      Outcome outcome, List<ContaminationHit> contaminating, List<ContaminationHit> exempt) {
    return new DecontaminatedText(
        outcome, List.of(), List.of(), logged(contaminating, outcome.action(), exempt));
  }

  private static List<Logged> logged(
      List<ContaminationHit> contaminating, Action action, List<ContaminationHit> exempt) {
    List<Logged> all = new ArrayList<>(contaminating.size() + exempt.size());
    contaminating.forEach(hit -> all.add(new Logged(hit, action)));
    exempt.forEach(hit -> all.add(new Logged(hit, Action.EXEMPT_SOURCE_QUOTE)));
    all.sort(Comparator.comparing(Logged::hit, ORDER));
    return all;
  }

  // A contaminating n-gram of a benchmark question's own text inside the pair's question.
  private static boolean asksIt(ContaminationHit hit, CharSpan question) {
    return hit.inQuestionText()
        && hit.charStart() < question.end()
        && hit.charEnd() > question.start();
  }

  /**
   * Hits for the benchmark questions the pair's question equals word for word, except those of
   * questions already among {@code hits}.
   */
  private List<ContaminationHit> equalQuestions(
      String text, CharSpan question, List<ContaminationHit> hits) {
    List<NormalizedWords.Word> words =
        NormalizedWords.of(text.substring(question.start(), question.end()));
    if (words.isEmpty()) {
      return List.of();
    }
    List<ContaminationHit> equal = new ArrayList<>();
    long hash = NgramHash.window(NgramHash.words(words), 0, words.size());
    for (int q : index.questionsWithText(hash)) {
      String id = index.questionId(q);
      if (hits.stream().noneMatch(hit -> hit.questionId().equals(id))) {
        equal.add(
            new ContaminationHit(
                id,
                join(words, 0, words.size()),
                question.start() + words.get(0).charStart(),
                question.start() + words.get(words.size() - 1).charEnd(),
                true,
                false,
                index.questionCorpus(q)));
      }
    }
    return equal;
  }

  // Adds text[from, to), trimmed of whitespace, when it is long enough and has a word.
  private void keepPiece(String text, int from, int to, List<CharSpan> kept) {
    while (from < to && NormalizedWords.isSpace(text.codePointAt(from))) {
      from += Character.charCount(text.codePointAt(from));
    }
    while (to > from && NormalizedWords.isSpace(text.codePointBefore(to))) {
      to -= Character.charCount(text.codePointBefore(to));
    }
    if (to > from
        && text.codePointCount(from, to) >= settings.minPieceChars()
        && text.substring(from, to).codePoints().anyMatch(NormalizedWords::isKept)) {
      kept.add(new CharSpan(from, to));
    }
  }

  /** The hits' spans widened by {@code margin} and to whitespace, merged, in order. */
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
    while (at > 0 && at < text.length() && inWord(text, at)) {
      at -= Character.charCount(text.codePointBefore(at));
    }
    return at;
  }

  // Moves a cut that falls inside a word forward to the word's end.
  private static int wordEndAtOrAfter(String text, int at) {
    if (at > 0 && at < text.length() && Character.isLowSurrogate(text.charAt(at))) {
      at++;
    }
    while (at > 0 && at < text.length() && inWord(text, at)) {
      at += Character.charCount(text.codePointAt(at));
    }
    return at;
  }

  // Whether index at lies between two characters of one word (no whitespace on either side).
  private static boolean inWord(String text, int at) {
    return !NormalizedWords.isSpace(text.codePointAt(at))
        && !NormalizedWords.isSpace(text.codePointBefore(at));
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
