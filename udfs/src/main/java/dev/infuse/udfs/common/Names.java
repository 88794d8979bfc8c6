package dev.infuse.udfs.common;

import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/** "Did you mean …" suggestions for unknown names, by edit distance. */
public final class Names {
  private Names() {}

  /**
   * The candidate nearest to {@code name}, if it is near enough to be a plausible typo: an edit
   * distance of at most a third of the longer name (at least 2), or a shared prefix/suffix
   * relation.
   */
  public static Optional<String> nearest(String name, Collection<String> candidates) {
    if (name == null || candidates.isEmpty()) {
      return Optional.empty();
    }
    String needle = name.toLowerCase(Locale.ROOT);
    String best = null;
    int bestDistance = Integer.MAX_VALUE;
    for (String candidate : candidates) {
      int distance = editDistance(needle, candidate.toLowerCase(Locale.ROOT));
      if (distance < bestDistance) {
        bestDistance = distance;
        best = candidate;
      }
    }
    int allowed = Math.max(2, Math.max(needle.length(), best.length()) / 3);
    boolean related =
        !needle.isEmpty()
            && (best.toLowerCase(Locale.ROOT).contains(needle)
                || needle.contains(best.toLowerCase(Locale.ROOT)));
    return bestDistance <= allowed || related ? Optional.of(best) : Optional.empty();
  }

  /** Names as a reader lists alternatives: "a, b or c". */
  public static String either(List<String> names) {
    return names.size() <= 1
        ? String.join("", names)
        : String.join(", ", names.subList(0, names.size() - 1))
            + " or "
            + names.get(names.size() - 1);
  }

  /** Levenshtein distance with unit costs. */
  public static int editDistance(String a, String b) {
    int[] previous = new int[b.length() + 1];
    int[] current = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      previous[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      current[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int substitution = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
        current[j] = Math.min(substitution, Math.min(previous[j] + 1, current[j - 1] + 1));
      }
      int[] swap = previous;
      previous = current;
      current = swap;
    }
    return previous[b.length()];
  }
}
