package dev.infuse.udfs.retrieve;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reciprocal-rank fusion (Cormack, Clarke and Büttcher, SIGIR 2009): a chunk's fused score is the
 * sum, over the rankings it appears in, of {@code 1 / (k + rank)} with 1-based ranks. Only ranks
 * matter, so BM25 scores and cosines need no calibration against each other. {@code k = 60} is the
 * paper's constant.
 */
public final class ReciprocalRankFusion {
  public static final int DEFAULT_K = 60;

  private final int k;

  public ReciprocalRankFusion(int k) {
    if (k < 0) {
      throw new IllegalArgumentException("rrf k: got " + k + ", expected >= 0");
    }
    this.k = k;
  }

  public int k() {
    return k;
  }

  /**
   * Fuses rankings into one, best first.
   *
   * @param rankings each ranked best first; a chunk absent from a ranking contributes nothing for
   *     it
   * @param top how many fused chunks to return
   */
  public List<ScoredChunk> fuse(List<List<ScoredChunk>> rankings, int top) {
    Map<String, double[]> scores = new LinkedHashMap<>();
    Map<String, String> docs = new LinkedHashMap<>();
    for (List<ScoredChunk> ranking : rankings) {
      for (int i = 0; i < ranking.size(); i++) {
        ScoredChunk chunk = ranking.get(i);
        scores.computeIfAbsent(chunk.chunkId(), id -> new double[1])[0] += 1.0 / (k + i + 1);
        docs.putIfAbsent(chunk.chunkId(), chunk.docId());
      }
    }
    TopK best = new TopK(top);
    scores.forEach(
        (chunkId, score) -> best.offer(new ScoredChunk(chunkId, docs.get(chunkId), score[0])));
    return best.best();
  }
}
