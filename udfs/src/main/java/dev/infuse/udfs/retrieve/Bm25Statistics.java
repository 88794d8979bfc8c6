package dev.infuse.udfs.retrieve;

import java.io.Serializable;
import java.util.HashMap;
import java.util.Map;

/**
 * The corpus statistics BM25 scores with: the collection's document count and token total (for idf
 * and the average chunk length) and, per term, its document and total frequency. A shard's own
 * statistics summed over every shard of a corpus ({@link #plus}) are exactly the statistics one
 * index over the whole corpus would have, so a shard searched with them scores every chunk as that
 * one index does.
 *
 * @param terms per analyzed term: only the terms that will be searched need to be present
 */
public record Bm25Statistics(
    long maxDoc,
    long docCount,
    long sumDocFreq,
    long sumTotalTermFreq,
    Map<String, TermCounts> terms)
    implements Serializable {

  /** A term's number of chunks and number of occurrences. */
  public record TermCounts(long docFreq, long totalTermFreq) implements Serializable {
    public TermCounts plus(TermCounts other) {
      return new TermCounts(docFreq + other.docFreq, totalTermFreq + other.totalTermFreq);
    }
  }

  public Bm25Statistics {
    terms = Map.copyOf(terms);
  }

  public static Bm25Statistics empty() {
    return new Bm25Statistics(0, 0, 0, 0, Map.of());
  }

  /** The statistics of two disjoint sets of chunks together. */
  public Bm25Statistics plus(Bm25Statistics other) {
    Map<String, TermCounts> merged = new HashMap<>(terms);
    other.terms.forEach((term, counts) -> merged.merge(term, counts, TermCounts::plus));
    return new Bm25Statistics(
        maxDoc + other.maxDoc,
        docCount + other.docCount,
        sumDocFreq + other.sumDocFreq,
        sumTotalTermFreq + other.sumTotalTermFreq,
        merged);
  }

  /** The same collection counts with other term counts (looked up for one batch of queries). */
  public Bm25Statistics withTerms(Map<String, TermCounts> newTerms) {
    return new Bm25Statistics(maxDoc, docCount, sumDocFreq, sumTotalTermFreq, newTerms);
  }
}
