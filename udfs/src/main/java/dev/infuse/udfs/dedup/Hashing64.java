package dev.infuse.udfs.dedup;

/**
 * Stable 64-bit hashing for dedup: FNV-1a over UTF-16 chars followed by the MurmurHash3 finaliser.
 * FNV alone mixes low bits poorly; the finaliser spreads every input bit over the whole word, which
 * MinHash needs because it compares minima of hashed values.
 */
final class Hashing64 {
  private static final long FNV_OFFSET = 0xcbf29ce484222325L;
  private static final long FNV_PRIME = 0x100000001b3L;

  private Hashing64() {}

  /** MurmurHash3's fmix64: a bijection on longs with full avalanche. */
  static long mix(long h) {
    h ^= h >>> 33;
    h *= 0xff51afd7ed558ccdL;
    h ^= h >>> 33;
    h *= 0xc4ceb9fe1a85ec53L;
    h ^= h >>> 33;
    return h;
  }

  static long start() {
    return FNV_OFFSET;
  }

  static long add(long h, char c) {
    h ^= c & 0xff;
    h *= FNV_PRIME;
    h ^= c >>> 8;
    h *= FNV_PRIME;
    return h;
  }

  static long add(long h, CharSequence text, int from, int to) {
    for (int i = from; i < to; i++) {
      h = add(h, text.charAt(i));
    }
    return h;
  }

  /** SplitMix64 step: the n-th value of a seeded stream, for deriving per-function constants. */
  static long splitMix(long seed, long n) {
    return mix(seed + (n + 1) * 0x9e3779b97f4a7c15L);
  }
}
