package dev.infuse.udfs.decontam;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * Every word n-gram of the benchmark texts (see {@link BenchmarkQuestion#protectedTexts()}), as
 * 64-bit hashes, each with the questions it comes from and two facts per (n-gram, question) pair:
 * whether the n-gram is in the question's own text (not only an option or answer), and whether it
 * is a <em>quote of the source</em>: it also occurs in the question's own document.
 *
 * <p>A text of at least n words contributes all its n-grams; a shorter text contributes its whole
 * word sequence as one shorter "n-gram" if it has at least {@code minShortWords} words, and nothing
 * otherwise. Words are {@link NormalizedWords}; the hash is {@link NgramHash}.
 *
 * <p>Quotes are marked in a second step, because the documents are too big to collect: {@link
 * #sourceQuotePairs} scans one document and returns the pairs of the questions about it whose
 * n-gram occurs in it, and {@link #withSourceQuotes} marks the union of those pairs. A question
 * without a document, or whose document is absent, has no quotes.
 *
 * <p>Memory: the index is flat arrays, built once on the driver and broadcast: the distinct hashes
 * sorted ({@code long}, 8 bytes each), offsets into the pair list (4 bytes per hash), and per
 * (n-gram, question) pair the question number (4 bytes) and its flags (1 byte), plus per question
 * its id, document id and the hash of its whole question text. So about 17 bytes per n-gram: a
 * benchmark suite of 100,000 questions of 100 words (10 million n-grams) takes about 170 MB.
 * Lookups are binary searches.
 */
public final class BenchmarkNgramIndex implements Serializable {
  private static final long serialVersionUID = 2L;

  /** Pair flag: the n-gram is in the question's own text. */
  static final byte QUESTION_TEXT = 1;

  /** Pair flag: the n-gram also occurs in the question's own document. */
  static final byte SOURCE_QUOTE = 2;

  private final int ngramWords;
  private final int minShortWords;
  private final String[] questionIds;
  private final String[] docIds;
  private final String[] corpora;
  // The distinct non-null docIds, sorted, for a binary search per scanned document.
  private final String[] sortedDocIds;
  private final long[] hashes;
  private final int[] offsets;
  private final int[] questions;
  private final byte[] flags;
  // Whole question texts: their hashes sorted, with the question number of each.
  private final long[] questionTextHashes;
  private final int[] questionTextOwners;
  // Window lengths to scan training texts with: n, then each shorter whole-text length seen.
  private final int[] lengths;

  private BenchmarkNgramIndex(
      int ngramWords,
      int minShortWords,
      String[] questionIds,
      String[] docIds,
      long[] hashes,
      int[] offsets,
      int[] questions,
      byte[] flags,
      long[] questionTextHashes,
      int[] questionTextOwners,
      int[] lengths) {
    this.ngramWords = ngramWords;
    this.minShortWords = minShortWords;
    this.questionIds = questionIds;
    this.docIds = docIds;
    this.corpora = new String[docIds.length];
    Map<String, String> interned = new HashMap<>();
    for (int i = 0; i < docIds.length; i++) {
      String corpus = BenchmarkQuestion.corpusOf(docIds[i]);
      corpora[i] = corpus == null ? null : interned.computeIfAbsent(corpus, c -> c);
    }
    this.sortedDocIds =
        Arrays.stream(docIds).filter(Objects::nonNull).distinct().sorted().toArray(String[]::new);
    this.hashes = hashes;
    this.offsets = offsets;
    this.questions = questions;
    this.flags = flags;
    this.questionTextHashes = questionTextHashes;
    this.questionTextOwners = questionTextOwners;
    this.lengths = lengths;
  }

  /**
   * Indexes the protected texts of {@code benchmark} with the n and short-text minimum of {@code
   * settings}. No pair is a quote yet (see {@link #withSourceQuotes}). A question id seen twice
   * keeps its first document.
   */
  public static BenchmarkNgramIndex build(
      Iterable<BenchmarkQuestion> benchmark, DecontaminationSettings settings) {
    int n = settings.ngramWords();
    int minShort = settings.minShortWords();
    List<String> ids = new ArrayList<>();
    List<String> docs = new ArrayList<>();
    Map<String, Integer> numbers = new HashMap<>();
    // Build-time only: per hash, question number -> flags, in insertion order.
    Map<Long, Map<Integer, Byte>> byHash = new HashMap<>();
    Map<Long, Set<Integer>> questionTexts = new HashMap<>();
    TreeSet<Integer> lengths = new TreeSet<>();
    for (BenchmarkQuestion question : benchmark) {
      Integer number = numbers.get(question.questionId());
      if (number == null) {
        number = ids.size();
        ids.add(question.questionId());
        docs.add(question.docId());
        numbers.put(question.questionId(), number);
      }
      int q = number;
      for (Map.Entry<String, Boolean> field : question.protectedFields().entrySet()) {
        List<NormalizedWords.Word> words = NormalizedWords.of(field.getKey());
        long[] wordHashes = NgramHash.words(words);
        byte flag = field.getValue() ? QUESTION_TEXT : 0;
        if (field.getValue() && !words.isEmpty()) {
          questionTexts
              .computeIfAbsent(NgramHash.window(wordHashes, 0, words.size()), h -> new TreeSet<>())
              .add(q);
        }
        if (words.size() >= n) {
          lengths.add(n);
          for (int i = 0; i + n <= words.size(); i++) {
            add(byHash, NgramHash.window(wordHashes, i, n), q, flag);
          }
        } else if (words.size() >= minShort) {
          lengths.add(words.size());
          add(byHash, NgramHash.window(wordHashes, 0, words.size()), q, flag);
        }
      }
    }
    long[] hashes = byHash.keySet().stream().mapToLong(Long::longValue).sorted().toArray();
    int[] offsets = new int[hashes.length + 1];
    int pairs = byHash.values().stream().mapToInt(Map::size).sum();
    int[] questions = new int[pairs];
    byte[] flags = new byte[pairs];
    int at = 0;
    for (int i = 0; i < hashes.length; i++) {
      offsets[i] = at;
      for (Map.Entry<Integer, Byte> pair : byHash.get(hashes[i]).entrySet()) {
        questions[at] = pair.getKey();
        flags[at++] = pair.getValue();
      }
    }
    offsets[hashes.length] = at;
    long[] textHashes =
        questionTexts.keySet().stream().mapToLong(Long::longValue).sorted().toArray();
    List<Long> ownerHashes = new ArrayList<>();
    List<Integer> owners = new ArrayList<>();
    for (long hash : textHashes) {
      for (int owner : questionTexts.get(hash)) {
        ownerHashes.add(hash);
        owners.add(owner);
      }
    }
    int[] windowLengths = lengths.descendingSet().stream().mapToInt(Integer::intValue).toArray();
    return new BenchmarkNgramIndex(
        n,
        minShort,
        ids.toArray(String[]::new),
        docs.toArray(String[]::new),
        hashes,
        offsets,
        questions,
        flags,
        ownerHashes.stream().mapToLong(Long::longValue).toArray(),
        owners.stream().mapToInt(Integer::intValue).toArray(),
        windowLengths);
  }

  private static void add(Map<Long, Map<Integer, Byte>> byHash, long hash, int q, byte flag) {
    byHash
        .computeIfAbsent(hash, h -> new LinkedHashMap<>())
        .merge(q, flag, (a, b) -> (byte) (a | b));
  }

  /**
   * The pairs (positions for {@link #withSourceQuotes}) whose n-gram occurs in {@code text} and
   * whose question is about the document {@code docId}: that question's quotes of its source.
   * Sorted, distinct; empty when no question is about {@code docId}.
   */
  public int[] sourceQuotePairs(String docId, String text) {
    if (docId == null || Arrays.binarySearch(sortedDocIds, docId) < 0) {
      return new int[0];
    }
    TreeSet<Integer> found = new TreeSet<>();
    List<NormalizedWords.Word> words = NormalizedWords.of(text);
    long[] wordHashes = NgramHash.words(words);
    for (int length : lengths) {
      for (int i = 0; i + length <= words.size(); i++) {
        int slot = slot(NgramHash.window(wordHashes, i, length));
        if (slot < 0) {
          continue;
        }
        for (int p = offsets[slot]; p < offsets[slot + 1]; p++) {
          if (docId.equals(docIds[questions[p]])) {
            found.add(p);
          }
        }
      }
    }
    return found.stream().mapToInt(Integer::intValue).toArray();
  }

  /** This index with the given pairs (from {@link #sourceQuotePairs}) marked as source quotes. */
  public BenchmarkNgramIndex withSourceQuotes(int[] pairs) {
    byte[] marked = flags.clone();
    for (int p : pairs) {
      if (p < 0 || p >= marked.length) {
        throw new IllegalArgumentException(
            "source quote pair: got " + p + ", expected 0.." + (marked.length - 1));
      }
      marked[p] |= SOURCE_QUOTE;
    }
    return new BenchmarkNgramIndex(
        ngramWords,
        minShortWords,
        questionIds,
        docIds,
        hashes,
        offsets,
        questions,
        marked,
        questionTextHashes,
        questionTextOwners,
        lengths);
  }

  /** The distinct source documents of the indexed questions, for finding their quotes. */
  public Set<String> docIds() {
    return new TreeSet<>(Arrays.asList(sortedDocIds));
  }

  /** The ids of the questions whose texts contain the n-gram with this hash; empty when none. */
  public List<String> questionIds(long hash) {
    int found = slot(hash);
    if (found < 0) {
      return List.of();
    }
    List<String> ids = new ArrayList<>(offsets[found + 1] - offsets[found]);
    for (int i = offsets[found]; i < offsets[found + 1]; i++) {
      ids.add(questionIds[questions[i]]);
    }
    return ids;
  }

  /** The hash's position among the distinct hashes, or -1. */
  int slot(long hash) {
    int found = Arrays.binarySearch(hashes, hash);
    return found < 0 ? -1 : found;
  }

  int pairsStart(int slot) {
    return offsets[slot];
  }

  int pairsEnd(int slot) {
    return offsets[slot + 1];
  }

  int pairQuestion(int pair) {
    return questions[pair];
  }

  byte pairFlags(int pair) {
    return flags[pair];
  }

  String questionId(int question) {
    return questionIds[question];
  }

  /** The corpus of the question's document, or null. */
  String questionCorpus(int question) {
    return corpora[question];
  }

  /** The questions whose whole normalised question text hashes to {@code hash}. */
  List<Integer> questionsWithText(long hash) {
    int at = Arrays.binarySearch(questionTextHashes, hash);
    if (at < 0) {
      return List.of();
    }
    while (at > 0 && questionTextHashes[at - 1] == hash) {
      at--;
    }
    List<Integer> found = new ArrayList<>();
    for (; at < questionTextHashes.length && questionTextHashes[at] == hash; at++) {
      found.add(questionTextOwners[at]);
    }
    return found;
  }

  /**
   * The word counts a training text must be scanned with: n first, then shorter whole-text lengths.
   */
  public int[] windowLengths() {
    return lengths.clone();
  }

  public int ngramWords() {
    return ngramWords;
  }

  public int minShortWords() {
    return minShortWords;
  }

  /** Distinct n-gram hashes. */
  public int size() {
    return hashes.length;
  }

  /** (n-gram, question) pairs. */
  public int pairs() {
    return questions.length;
  }

  /** (n-gram, question) pairs marked as quotes of the question's source document. */
  public int sourceQuotes() {
    int count = 0;
    for (byte flag : flags) {
      count += (flag & SOURCE_QUOTE) != 0 ? 1 : 0;
    }
    return count;
  }

  /** Questions indexed (with or without n-grams). */
  public int questionCount() {
    return questionIds.length;
  }

  /** Approximate heap taken by the arrays and ids, for logging what is broadcast. */
  public long estimatedBytes() {
    long bytes =
        8L * hashes.length
            + 4L * offsets.length
            + 5L * questions.length
            + 12L * questionTextHashes.length;
    for (int i = 0; i < questionIds.length; i++) {
      bytes += 40 + 2L * questionIds[i].length();
      bytes += docIds[i] == null ? 0 : 40 + 2L * docIds[i].length();
    }
    return bytes;
  }
}
