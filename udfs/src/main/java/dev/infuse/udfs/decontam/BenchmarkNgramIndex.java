package dev.infuse.udfs.decontam;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Every word n-gram of the benchmark texts (see {@link BenchmarkQuestion#protectedTexts()}), as
 * 64-bit hashes, each with the questions it comes from.
 *
 * <p>A text of at least n words contributes all its n-grams; a shorter text contributes its whole
 * word sequence as one shorter "n-gram" if it has at least {@code minShortWords} words, and nothing
 * otherwise. Words are {@link NormalizedWords}; the hash is {@link NgramHash}.
 *
 * <p>Memory: the index is three flat arrays, built once on the driver and broadcast: the distinct
 * hashes sorted ({@code long}, 8 bytes each), offsets into the question list (4 bytes per hash) and
 * question numbers (4 bytes per (n-gram, question) pair), plus the question id strings. So about 16
 * bytes per n-gram: a benchmark suite of 100,000 questions of 100 words (10 million n-grams) takes
 * about 160 MB. Lookups are binary searches.
 */
public final class BenchmarkNgramIndex implements Serializable {
  private static final long serialVersionUID = 1L;

  private final int ngramWords;
  private final int minShortWords;
  private final String[] questionIds;
  private final long[] hashes;
  private final int[] offsets;
  private final int[] questions;
  // Window lengths to scan training texts with: n, then each shorter whole-text length seen.
  private final int[] lengths;

  private BenchmarkNgramIndex(
      int ngramWords,
      int minShortWords,
      String[] questionIds,
      long[] hashes,
      int[] offsets,
      int[] questions,
      int[] lengths) {
    this.ngramWords = ngramWords;
    this.minShortWords = minShortWords;
    this.questionIds = questionIds;
    this.hashes = hashes;
    this.offsets = offsets;
    this.questions = questions;
    this.lengths = lengths;
  }

  /**
   * Indexes the protected texts of {@code benchmark} with the n and short-text minimum of {@code
   * settings}.
   */
  public static BenchmarkNgramIndex build(
      Iterable<BenchmarkQuestion> benchmark, DecontaminationSettings settings) {
    int n = settings.ngramWords();
    int minShort = settings.minShortWords();
    List<String> ids = new ArrayList<>();
    Map<String, Integer> numbers = new HashMap<>();
    // Build-time only: distinct question numbers per hash, in insertion order.
    Map<Long, Set<Integer>> byHash = new HashMap<>();
    TreeSet<Integer> lengths = new TreeSet<>();
    for (BenchmarkQuestion question : benchmark) {
      Integer number = numbers.get(question.questionId());
      if (number == null) {
        number = ids.size();
        ids.add(question.questionId());
        numbers.put(question.questionId(), number);
      }
      for (String text : question.protectedTexts()) {
        List<NormalizedWords.Word> words = NormalizedWords.of(text);
        long[] wordHashes = NgramHash.words(words);
        if (words.size() >= n) {
          lengths.add(n);
          for (int i = 0; i + n <= words.size(); i++) {
            byHash
                .computeIfAbsent(NgramHash.window(wordHashes, i, n), h -> new LinkedHashSet<>())
                .add(number);
          }
        } else if (words.size() >= minShort) {
          lengths.add(words.size());
          byHash
              .computeIfAbsent(
                  NgramHash.window(wordHashes, 0, words.size()), h -> new LinkedHashSet<>())
              .add(number);
        }
      }
    }
    long[] hashes = byHash.keySet().stream().mapToLong(Long::longValue).sorted().toArray();
    int[] offsets = new int[hashes.length + 1];
    int pairs = byHash.values().stream().mapToInt(Set::size).sum();
    int[] questions = new int[pairs];
    int at = 0;
    for (int i = 0; i < hashes.length; i++) {
      offsets[i] = at;
      for (int number : byHash.get(hashes[i])) {
        questions[at++] = number;
      }
    }
    offsets[hashes.length] = at;
    int[] windowLengths = lengths.descendingSet().stream().mapToInt(Integer::intValue).toArray();
    return new BenchmarkNgramIndex(
        n, minShort, ids.toArray(String[]::new), hashes, offsets, questions, windowLengths);
  }

  /** The ids of the questions whose texts contain the n-gram with this hash; empty when none. */
  public List<String> questionIds(long hash) {
    int found = Arrays.binarySearch(hashes, hash);
    if (found < 0) {
      return List.of();
    }
    List<String> ids = new ArrayList<>(offsets[found + 1] - offsets[found]);
    for (int i = offsets[found]; i < offsets[found + 1]; i++) {
      ids.add(questionIds[questions[i]]);
    }
    return ids;
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

  /** Questions indexed (with or without n-grams). */
  public int questionCount() {
    return questionIds.length;
  }

  /** Approximate heap taken by the arrays and ids, for logging what is broadcast. */
  public long estimatedBytes() {
    long bytes = 8L * hashes.length + 4L * offsets.length + 4L * questions.length;
    for (String id : questionIds) {
      bytes += 40 + 2L * id.length();
    }
    return bytes;
  }
}
