package dev.infuse.udfs.dedup;

import java.io.Serializable;

/**
 * Locality-sensitive hashing by banding: a signature of {@code bands × rows} values is cut into
 * {@code bands} slices of {@code rows} values; two texts become candidates when any band's slice is
 * equal, found as equal band keys {@code hash(band index, slice)}.
 *
 * <p>For two texts of Jaccard similarity {@code s}, a band agrees with probability {@code s^r}, so
 * {@code P(candidate) = 1 - (1 - s^r)^b}: an S-curve whose steepest point is near {@link
 * #threshold} {@code (1/b)^(1/r)}.
 */
public final class LshBands implements Serializable {
  private static final long serialVersionUID = 1L;

  private final int bands;
  private final int rows;

  public LshBands(int bands, int rows) {
    if (bands < 1 || rows < 1) {
      throw new IllegalArgumentException(
          "bands and rows: got " + bands + " and " + rows + ", expected both >= 1");
    }
    this.bands = bands;
    this.rows = rows;
  }

  public int bands() {
    return bands;
  }

  public int rows() {
    return rows;
  }

  /**
   * One key per band. The band index is hashed in, so equal slices in different bands never meet.
   */
  public long[] keys(long[] signature) {
    if (signature.length != bands * rows) {
      throw new IllegalArgumentException(
          "signature length: got "
              + signature.length
              + ", expected bands × rows = "
              + bands
              + " × "
              + rows
              + " = "
              + bands * rows);
    }
    long[] keys = new long[bands];
    for (int band = 0; band < bands; band++) {
      long h = Hashing64.mix(band + 0x5bd1e995L);
      for (int r = band * rows; r < (band + 1) * rows; r++) {
        h = Hashing64.mix(h * 0x9e3779b97f4a7c15L + signature[r]);
      }
      keys[band] = h;
    }
    return keys;
  }

  /** Probability that two texts of Jaccard similarity {@code s} share at least one band key. */
  public static double candidateProbability(double s, int bands, int rows) {
    return 1.0 - Math.pow(1.0 - Math.pow(s, rows), bands);
  }

  /** The similarity {@code (1/b)^(1/r)} near which {@link #candidateProbability} rises steepest. */
  public static double threshold(int bands, int rows) {
    return Math.pow(1.0 / bands, 1.0 / rows);
  }
}
