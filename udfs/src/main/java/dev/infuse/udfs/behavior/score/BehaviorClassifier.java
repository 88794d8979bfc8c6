package dev.infuse.udfs.behavior.score;

/**
 * Reads which behaviour a response exhibits. Versioned like a metric: bump {@link #version()} on
 * any change that can alter a classification, and store {@code id@vN} with every result.
 */
public interface BehaviorClassifier {
  /** The registry name. */
  String id();

  /** Bumped on any change that alters a classification. */
  int version();

  /** The behaviour {@code response} shows; a null behaviour when it cannot be read. */
  Classification classify(String response);

  /** {@code id@vN}, the tag stored with results. */
  default String tag() {
    return id() + "@v" + version();
  }
}
