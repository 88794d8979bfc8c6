package dev.infuse.udfs.dedup;

import java.util.Arrays;

/**
 * Shingles of a text, each hashed to 64 bits. Word shingles are the {@code k} consecutive words of
 * the {@link TextNormalizer normal form}; character shingles are its {@code k} consecutive
 * characters.
 *
 * <p>A text with at least one word but fewer than {@code k} words (or characters) yields a single
 * shingle of all of it, so short texts are still compared; an empty text yields none. Results are
 * sorted and distinct: a set, as Jaccard similarity wants.
 */
public final class Shingles {
  /** Between words of a shingle, so ("ab", "c") and ("a", "bc") hash differently. */
  private static final char WORD_SEPARATOR = ' ';

  private Shingles() {}

  /** Distinct hashed word {@code k}-shingles of {@code text}'s normal form. */
  public static long[] words(String text, int k) {
    requirePositive(k);
    return wordsOfNormalized(TextNormalizer.normalize(text), k);
  }

  /** As {@link #words} for a text that is already in normal form (words split by single spaces). */
  public static long[] wordsOfNormalized(String normalized, int k) {
    requirePositive(k);
    if (normalized.isEmpty()) {
      return new long[0];
    }
    // Word boundaries: starts[i] is where word i begins, ends[i] where it ends.
    int[] starts = new int[16];
    int[] ends = new int[16];
    int words = 0;
    int begin = 0;
    for (int i = 0; i <= normalized.length(); i++) {
      if (i == normalized.length() || normalized.charAt(i) == ' ') {
        if (i > begin) {
          if (words == starts.length) {
            starts = Arrays.copyOf(starts, words * 2);
            ends = Arrays.copyOf(ends, words * 2);
          }
          starts[words] = begin;
          ends[words] = i;
          words++;
        }
        begin = i + 1;
      }
    }
    int count = Math.max(1, words - k + 1);
    int width = Math.min(k, words);
    long[] hashes = new long[count];
    for (int s = 0; s < count; s++) {
      long h = Hashing64.start();
      for (int w = s; w < s + width; w++) {
        if (w > s) {
          h = Hashing64.add(h, WORD_SEPARATOR);
        }
        h = Hashing64.add(h, normalized, starts[w], ends[w]);
      }
      hashes[s] = Hashing64.mix(h);
    }
    return distinctSorted(hashes);
  }

  /** Distinct hashed character {@code k}-shingles of {@code text}'s normal form. */
  public static long[] characters(String text, int k) {
    requirePositive(k);
    String normalized = TextNormalizer.normalize(text);
    if (normalized.isEmpty()) {
      return new long[0];
    }
    int count = Math.max(1, normalized.length() - k + 1);
    int width = Math.min(k, normalized.length());
    long[] hashes = new long[count];
    for (int s = 0; s < count; s++) {
      hashes[s] = Hashing64.mix(Hashing64.add(Hashing64.start(), normalized, s, s + width));
    }
    return distinctSorted(hashes);
  }

  /** Exact Jaccard similarity of two sorted distinct shingle sets; 1.0 when both are empty. */
  public static double jaccard(long[] a, long[] b) {
    if (a.length == 0 && b.length == 0) {
      return 1.0;
    }
    int i = 0;
    int j = 0;
    int common = 0;
    while (i < a.length && j < b.length) {
      if (a[i] == b[j]) {
        common++;
        i++;
        j++;
      } else if (a[i] < b[j]) {
        i++;
      } else {
        j++;
      }
    }
    return (double) common / (a.length + b.length - common);
  }

  private static long[] distinctSorted(long[] hashes) {
    Arrays.sort(hashes);
    int n = 0;
    for (int i = 0; i < hashes.length; i++) {
      if (i == 0 || hashes[i] != hashes[i - 1]) {
        hashes[n++] = hashes[i];
      }
    }
    return n == hashes.length ? hashes : Arrays.copyOf(hashes, n);
  }

  private static void requirePositive(int k) {
    if (k < 1) {
      throw new IllegalArgumentException("shingle size: got " + k + ", expected >= 1");
    }
  }
}
