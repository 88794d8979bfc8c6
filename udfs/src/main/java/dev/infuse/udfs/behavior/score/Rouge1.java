package dev.infuse.udfs.behavior.score;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * ROUGE-1 F as the MEDIQA-CORR 2024 script gets it: the PyPI {@code rouge} package (py-rouge by
 * pltrdy), {@code Rouge()} with its defaults. That means: the text is split at every "." into
 * sentences, empty pieces dropped, each piece's whitespace collapsed, and the pieces split on
 * single spaces into tokens; no lower-casing, no stemming, no other punctuation removed; tokens are
 * counted once each (a set, the package's {@code exclusive=True}); F = 2PR / (P + R + 1e-8).
 *
 * <p>Deviation: the package raises on an empty hypothesis or reference (a text of only dots); here
 * that pair scores 0.
 */
final class Rouge1 {
  private Rouge1() {}

  static double f(String hypothesis, String reference) {
    Set<String> hyp = unigrams(hypothesis);
    Set<String> ref = unigrams(reference);
    if (hyp.isEmpty() || ref.isEmpty()) {
      return 0.0;
    }
    Set<String> overlap = new HashSet<>(hyp);
    overlap.retainAll(ref);
    double precision = (double) overlap.size() / hyp.size();
    double recall = (double) overlap.size() / ref.size();
    return 2.0 * ((precision * recall) / (precision + recall + 1e-8));
  }

  /** The package's tokens; empty when no sentence is left (where the package raises). */
  static Set<String> unigrams(String text) {
    List<String> sentences = new ArrayList<>();
    for (String piece : text.split("\\.", -1)) {
      if (!piece.isEmpty()) {
        // Python's " ".join(piece.split()): a whitespace-only piece becomes "".
        sentences.add(piece.isBlank() ? "" : String.join(" ", piece.strip().split("\\s+")));
      }
    }
    Set<String> tokens = new HashSet<>();
    for (String sentence : sentences) {
      // "".split(" ") is [""] in Python too: a blank piece adds the empty token, as there.
      for (String token : sentence.split(" ", -1)) {
        tokens.add(token);
      }
    }
    return tokens;
  }
}
