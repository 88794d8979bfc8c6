package dev.infuse.udfs.decontam;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * A 64-bit hash of a sequence of normalised words: FNV-1a over each word's UTF-8 bytes with a
 * separator byte between words, finished with a murmur3 mix. Benchmark and training sides use the same
 * function, so equal word sequences always hash equal; at 64 bits two different n-grams collide with
 * odds of about 1 in 10^19 per pair, which at benchmark scale (millions of n-grams) is negligible.
 */
final class NgramHash {
  private static final long FNV_OFFSET = 0xcbf29ce484222325L;
  private static final long FNV_PRIME = 0x100000001b3L;

  private NgramHash() {}

  /** The hash of {@code words[from, from + count)}. */
  static long of(List<NormalizedWords.Word> words, int from, int count) {
    long hash = FNV_OFFSET;
    for (int i = from; i < from + count; i++) {
      for (byte b : words.get(i).text().getBytes(StandardCharsets.UTF_8)) {
        hash = (hash ^ (b & 0xff)) * FNV_PRIME;
      }
      // 0xff never occurs in UTF-8, so "ab c" and "a bc" cannot hash alike by construction.
      hash = (hash ^ 0xff) * FNV_PRIME;
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
