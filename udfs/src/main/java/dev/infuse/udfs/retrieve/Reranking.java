package dev.infuse.udfs.retrieve;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The reranking step, without the model: a question's first-stage candidates (best first) and the
 * cross-encoder's score of each become the top {@code topK} by that score, each remembering its
 * first-stage rank and score for audit. Ties in the rerank score keep the first-stage order.
 */
public final class Reranking {
  private Reranking() {}

  /**
   * A chunk after reranking.
   *
   * @param firstStageRank its 1-based rank before reranking
   * @param firstStageScore its score before reranking (BM25, cosine or RRF)
   * @param rerankScore the cross-encoder's score, which the new order follows
   */
  public record Reranked(
      ScoredChunk chunk, int firstStageRank, double firstStageScore, double rerankScore) {}

  /**
   * @param candidates the first-stage ranking, best first
   * @param scores the cross-encoder's score of each candidate, in the same order
   */
  public static List<Reranked> rerank(List<ScoredChunk> candidates, float[] scores, int topK) {
    if (scores.length != candidates.size()) {
      throw new IllegalArgumentException(
          "rerank: got " + scores.length + " score(s) for " + candidates.size() + " candidate(s)");
    }
    if (topK < 1) {
      throw new IllegalArgumentException("rerank_top_k: got " + topK + ", expected >= 1");
    }
    List<Reranked> all = new ArrayList<>(candidates.size());
    for (int i = 0; i < candidates.size(); i++) {
      ScoredChunk chunk = candidates.get(i);
      if (!Float.isFinite(scores[i])) {
        throw new IllegalStateException(
            "rerank: the cross-encoder scored chunk "
                + chunk.chunkId()
                + " "
                + scores[i]
                + ", expected a finite number");
      }
      all.add(new Reranked(chunk, i + 1, chunk.score(), scores[i]));
    }
    all.sort(
        Comparator.comparingDouble(Reranked::rerankScore)
            .reversed()
            .thenComparingInt(Reranked::firstStageRank));
    return List.copyOf(all.subList(0, Math.min(topK, all.size())));
  }
}
