package dev.infuse.udfs.bench;

/**
 * The input sizes of a benchmark: the default run's, chosen for a {@code bin/infuse bench} of about
 * 20 minutes on two cores (22 to 25 measured, on a machine whose speed varied by up to 2x between
 * sittings), or the at-scale run's when the system property {@value #SCALE_PROPERTY} is true
 * ({@code bin/infuse bench --scale}). A size named on the command line ({@code
 * -Dbench.scaleTexts=…}) wins over both.
 */
public final class BenchSizes {
  /** The system property {@code bin/infuse bench --scale} sets. */
  public static final String SCALE_PROPERTY = "bench.scale";

  private BenchSizes() {}

  /** Whether this is the at-scale run. */
  public static boolean atScale() {
    return Boolean.getBoolean(SCALE_PROPERTY);
  }

  /**
   * The integer system property {@code property} when set, else {@code atScale} in the at-scale run
   * and {@code normal} otherwise.
   */
  public static int size(String property, int normal, int atScale) {
    return Integer.getInteger(property, atScale() ? atScale : normal);
  }
}
