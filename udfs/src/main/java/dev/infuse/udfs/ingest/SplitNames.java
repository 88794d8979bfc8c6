package dev.infuse.udfs.ingest;

import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Infers a split (and an ANLI round) from a file name. Matches whole name tokens, so {@code
 * latest.jsonl} is not a test file; {@code ValidationSet} and {@code test1} still count.
 */
final class SplitNames {
  private static final Pattern TRAIN = Pattern.compile("train(ing)?\\d*");
  private static final Pattern TEST = Pattern.compile("test(ing)?\\d*");
  private static final Pattern DEV = Pattern.compile("(dev|val|valid|validation)\\d*");
  private static final Pattern ROUND = Pattern.compile("r\\d+");

  private SplitNames() {}

  /**
   * {@code train}, {@code test} or {@code dev} when a name token says so (in that order), else the
   * fallback.
   */
  static String fromFileName(String fileName, String fallback) {
    List<String> tokens = tokens(fileName);
    if (tokens.stream().anyMatch(t -> TRAIN.matcher(t).matches())) {
      return "train";
    }
    if (tokens.stream().anyMatch(t -> TEST.matcher(t).matches())) {
      return "test";
    }
    if (tokens.stream().anyMatch(t -> DEV.matcher(t).matches())) {
      return "dev";
    }
    return fallback;
  }

  /** The round token of a name like {@code ANLI_analysis_r1_dev.csv}: {@code r1}. */
  static Optional<String> round(String fileName) {
    return tokens(fileName).stream().filter(t -> ROUND.matcher(t).matches()).findFirst();
  }

  /** Lowercase tokens, split at non-alphanumerics and at camel-case boundaries. */
  static List<String> tokens(String fileName) {
    String spaced = fileName.replaceAll("([a-z])([A-Z])", "$1 $2").toLowerCase(Locale.ROOT);
    return List.of(spaced.split("[^a-z0-9]+"));
  }
}
