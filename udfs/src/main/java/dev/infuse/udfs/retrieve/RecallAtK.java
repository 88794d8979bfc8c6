package dev.infuse.udfs.retrieve;

import java.util.List;
import java.util.Set;

/**
 * Recall@k of evidence retrieval: a question counts as a hit at {@code k} when any of its top
 * {@code k} chunks belongs to a gold evidence document (FinanceBench: an evidence page). Recall@k
 * is the fraction of questions with known evidence that are hits; questions without gold evidence
 * are not counted.
 */
public final class RecallAtK {
  private RecallAtK() {}

  /**
   * Whether the top {@code k} of {@code bestFirst} holds a chunk of a gold document.
   *
   * @param bestFirst the retrieved chunks, rank 1 first
   * @param goldDocIds the evidence documents; must not be empty
   */
  public static boolean hit(List<ScoredChunk> bestFirst, Set<String> goldDocIds, int k) {
    if (goldDocIds.isEmpty()) {
      throw new IllegalArgumentException("no gold evidence: such a question has no recall");
    }
    if (k < 1) {
      throw new IllegalArgumentException("k: got " + k + ", expected >= 1");
    }
    for (int i = 0; i < Math.min(k, bestFirst.size()); i++) {
      if (goldDocIds.contains(bestFirst.get(i).docId())) {
        return true;
      }
    }
    return false;
  }

  /**
   * The 1-based rank of the first gold chunk, or 0 when none was retrieved: hit at k iff 0 < rank
   * <= k.
   */
  public static int firstGoldRank(List<ScoredChunk> bestFirst, Set<String> goldDocIds) {
    for (int i = 0; i < bestFirst.size(); i++) {
      if (goldDocIds.contains(bestFirst.get(i).docId())) {
        return i + 1;
      }
    }
    return 0;
  }

  /**
   * hits / n, and 0 for no questions (reported beside n, so a reader sees there was nothing to
   * count).
   */
  public static double recall(long hits, long n) {
    return n == 0 ? 0.0 : (double) hits / n;
  }
}
