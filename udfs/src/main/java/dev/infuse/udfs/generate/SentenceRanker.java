package dev.infuse.udfs.generate;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Ranks a document's sentences by relevance to a query: the IDF-weighted overlap of content terms,
 * with IDF computed over the document's own sentences, so a term that occurs everywhere (the
 * protagonist's name) counts little and a rare one (the detail a question probes) counts much.
 */
public final class SentenceRanker {
  private final List<Sentence> sentences;
  private final List<Set<String>> sentenceTerms = new ArrayList<>();
  private final Map<String, Double> idf = new HashMap<>();

  public SentenceRanker(List<Sentence> sentences) {
    this.sentences = List.copyOf(sentences);
    Map<String, Integer> df = new HashMap<>();
    for (Sentence sentence : this.sentences) {
      Set<String> terms = new HashSet<>(Words.terms(sentence.text()));
      sentenceTerms.add(terms);
      for (String term : terms) {
        df.merge(term, 1, Integer::sum);
      }
    }
    int n = this.sentences.size();
    df.forEach((term, count) -> idf.put(term, Math.log((n + 1.0) / (count + 0.5))));
  }

  /**
   * The relevance of sentence {@code index} to {@code query}: the summed IDF of shared distinct
   * terms.
   */
  public double score(String query, int index) {
    double score = 0;
    for (String term : new LinkedHashSet<>(Words.terms(query))) {
      if (sentenceTerms.get(index).contains(term)) {
        score += idf.getOrDefault(term, 0.0);
      }
    }
    return score;
  }

  /**
   * The indices of the {@code k} most relevant sentences with a positive score, best first (ties:
   * earlier first).
   */
  public List<Integer> top(String query, int k) {
    List<double[]> scored = new ArrayList<>();
    for (int i = 0; i < sentences.size(); i++) {
      double score = score(query, i);
      if (score > 0) {
        scored.add(new double[] {score, i});
      }
    }
    scored.sort(Comparator.<double[]>comparingDouble(s -> -s[0]).thenComparingDouble(s -> s[1]));
    List<Integer> top = new ArrayList<>();
    for (int i = 0; i < Math.min(k, scored.size()); i++) {
      top.add((int) scored.get(i)[1]);
    }
    return top;
  }
}
