package dev.infuse.udfs.embed;

/**
 * Vectors and how much of each text the encoder's window held.
 *
 * @param vectors one L2-normalised vector per text, in input order
 * @param windows per text, how many encoder windows it spans: 1 when it fits; more when it is
 *     longer than the window (embedded as that many windows under {@link LongTextMode#WINDOW},
 *     truncated to the first under {@link LongTextMode#WARN})
 */
public record EmbeddedTexts(float[][] vectors, int[] windows) {
  public EmbeddedTexts {
    if (vectors.length != windows.length) {
      throw new IllegalArgumentException(
          vectors.length + " vectors but " + windows.length + " window counts");
    }
  }
}
