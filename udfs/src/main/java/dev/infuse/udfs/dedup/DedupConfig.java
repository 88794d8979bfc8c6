package dev.infuse.udfs.dedup;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;

/**
 * Settings of exact and near-duplicate removal.
 *
 * <p>Defaults and why:
 *
 * <ul>
 *   <li>{@code shingleSize} 5 words: long enough that unrelated texts in one language rarely share
 *       shingles (common 3-word phrases do), short enough that one edited word changes only 5 of
 *       ~200 shingles of a typical document.
 *   <li>{@code numPermutations} 120 = {@code bands} 24 × {@code rows} 5: 1 KB of signature per
 *       text.
 *   <li>{@code jaccardThreshold} 0.8: the usual near-duplicate cut for training corpora.
 *   <li>The LSH curve's threshold {@code (1/24)^(1/5) ≈ 0.53} sits on purpose well below 0.8,
 *       because LSH only proposes candidates and every candidate is verified by exact shingle
 *       Jaccard: a pair at s = 0.8 is missed with probability 7·10⁻⁵ (at 16 × 8, threshold 0.71, it
 *       was 0.053, and the benchmark lost 0.5% of the planted copies to it; at 10 × 10, threshold
 *       0.79, it would be 0.32). The price is verifying pairs between about 0.5 and 0.8 (at s =
 *       0.5, P = 0.53; at 0.3, 0.06), one join row each.
 *   <li>{@code maxBucketSize} 100: a band bucket of up to 100 texts is paired all against all (≤
 *       4,950 pairs); a larger one (boilerplate shared by many texts) is paired as a chain in
 *       row_id order plus each member with the smallest, so its cost stays linear.
 *   <li>{@code seed} 42: any fixed value; the same seed gives the same output.
 * </ul>
 *
 * @param shingleSize words per shingle
 * @param numPermutations MinHash functions, the signature length; must equal bands × rows
 * @param bands LSH bands
 * @param rows signature values per band
 * @param jaccardThreshold pairs whose estimated Jaccard similarity is at least this are duplicates
 * @param seed derives the hash functions
 * @param maxBucketSize largest band bucket paired all against all
 */
public record DedupConfig(
    int shingleSize,
    int numPermutations,
    int bands,
    int rows,
    double jaccardThreshold,
    long seed,
    int maxBucketSize)
    implements Serializable {

  public static DedupConfig defaults() {
    return new DedupConfig(5, 120, 24, 5, 0.8, 42L, 100);
  }

  /**
   * Every invalid setting, each naming the option, the value and what is expected; empty when
   * valid.
   */
  public List<String> problems() {
    List<String> problems = new ArrayList<>();
    if (shingleSize < 1) {
      problems.add("shingle_size: got " + shingleSize + ", expected an integer >= 1");
    }
    if (numPermutations < 1) {
      problems.add("num_permutations: got " + numPermutations + ", expected an integer >= 1");
    }
    if (bands < 1) {
      problems.add("bands: got " + bands + ", expected an integer >= 1");
    }
    if (rows < 1) {
      problems.add("rows: got " + rows + ", expected an integer >= 1");
    }
    if (bands >= 1 && rows >= 1 && numPermutations >= 1 && (long) bands * rows != numPermutations) {
      problems.add(
          "bands × rows: got "
              + bands
              + " × "
              + rows
              + " = "
              + (long) bands * rows
              + ", expected num_permutations = "
              + numPermutations);
    }
    if (!(jaccardThreshold > 0.0 && jaccardThreshold <= 1.0)) {
      problems.add("jaccard_threshold: got " + jaccardThreshold + ", expected a number in (0, 1]");
    }
    if (maxBucketSize < 2) {
      problems.add("max_bucket_size: got " + maxBucketSize + ", expected an integer >= 2");
    }
    return problems;
  }

  /** This config, or an {@link IllegalArgumentException} listing all its {@link #problems()}. */
  public DedupConfig requireValid() {
    List<String> problems = problems();
    if (!problems.isEmpty()) {
      throw new IllegalArgumentException("invalid dedup config: " + String.join("; ", problems));
    }
    return this;
  }

  /** {@link LshBands#threshold} of these bands and rows. */
  public double lshThreshold() {
    return LshBands.threshold(bands, rows);
  }

  public MinHasher minHasher() {
    return new MinHasher(numPermutations, seed);
  }

  public LshBands lshBands() {
    return new LshBands(bands, rows);
  }

  public DedupConfig withSeed(long newSeed) {
    return new DedupConfig(
        shingleSize, numPermutations, bands, rows, jaccardThreshold, newSeed, maxBucketSize);
  }

  public DedupConfig withShingleSize(int size) {
    return new DedupConfig(
        size, numPermutations, bands, rows, jaccardThreshold, seed, maxBucketSize);
  }
}
