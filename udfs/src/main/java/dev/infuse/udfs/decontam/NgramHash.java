package dev.infuse.udfs.decontam;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * 64-bit hashes of sequences of normalised words. Each word is hashed once (FNV-1a over its UTF-8
 * bytes, then a murmur3 finaliser); a window of words combines its word hashes in order and is
 * finalised again, so scanning a text costs one pass over its characters plus n multiply-adds per
 * window. Benchmark and training sides use the same functions, so equal word sequences always hash
 * equal; at 64 bits two different n-grams collide with odds of about 1 in 10^19 per pair,
 * negligible at benchmark scale (millions of n-grams).
 */
final class NgramHash {
  private static final long FNV_OFFSET = 0xcbf29ce484222325L;
  private static final long FNV_PRIME = 0x100000001b3L;
  private static final long GOLDEN = 0x9e3779b97f4a7c15L;

  private NgramHash() {}

  /** One hash per word, in order. */
  static long[] words(List<NormalizedWords.Word> words) {
    long[] hashes = new long[words.size()];
    for (int i = 0; i < hashes.length; i++) {
      long hash = FNV_OFFSET;
      for (byte b : words.get(i).text().getBytes(StandardCharsets.UTF_8)) {
        hash = (hash ^ (b & 0xff)) * FNV_PRIME;
      }
      hashes[i] = mix(hash);
    }
    return hashes;
  }

  /** The hash of the words {@code [from, from + count)}, given their {@link #words} hashes. */
  static long window(long[] wordHashes, int from, int count) {
    long hash = count;
    for (int i = from; i < from + count; i++) {
      // Multiplying before adding makes the hash depend on word order.
      hash = hash * GOLDEN + wordHashes[i];
    }
    return mix(hash);
  }

  private static long mix(long h) {
    h ^= h >>> 33;
    h *= 0xff51afd7ed558ccdL;
    h ^= h >>> 33;
    h *= 0xc4ceb9fe1a85ec53L;
    h ^= h >>> 33;
    return h;
  }
}
