package dev.infuse.udfs.retrieve;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Exact nearest neighbours by cosine over unit vectors (a dot product), optionally within one
 * document. Exact rather than approximate (HNSW): a corpus shard holds at most tens of thousands of
 * chunks, and a brute-force scan of those per question costs milliseconds and ranks exactly as a
 * single-JVM search. Dot products are summed in double in dimension order, so a chunk scores the
 * same in any shard.
 */
public final class DenseIndex {
  private final String[] chunkIds;
  private final String[] docIds;
  private final float[][] vectors;
  private final Map<String, int[]> byDoc;

  /**
   * Parallel lists: chunk {@code i} is {@code chunkIds[i]} of {@code docIds[i]} with unit vector
   * {@code vectors[i]}.
   */
  public DenseIndex(List<String> chunkIds, List<String> docIds, List<float[]> vectors) {
    if (chunkIds.size() != docIds.size() || chunkIds.size() != vectors.size()) {
      throw new IllegalArgumentException(
          "chunkIds, docIds and vectors differ in length: "
              + chunkIds.size()
              + ", "
              + docIds.size()
              + ", "
              + vectors.size());
    }
    this.chunkIds = chunkIds.toArray(String[]::new);
    this.docIds = docIds.toArray(String[]::new);
    this.vectors = vectors.toArray(float[][]::new);
    Map<String, List<Integer>> positions = new HashMap<>();
    for (int i = 0; i < this.docIds.length; i++) {
      if (i > 0 && this.vectors[i].length != this.vectors[0].length) {
        throw new IllegalArgumentException(
            "chunk "
                + this.chunkIds[i]
                + ": dimension "
                + this.vectors[i].length
                + ", expected "
                + this.vectors[0].length
                + " like the others");
      }
      positions.computeIfAbsent(this.docIds[i], d -> new ArrayList<>()).add(i);
    }
    this.byDoc = new HashMap<>();
    positions.forEach(
        (doc, list) -> byDoc.put(doc, list.stream().mapToInt(Integer::intValue).toArray()));
  }

  public int size() {
    return chunkIds.length;
  }

  /**
   * The {@code k} chunks most similar to {@code query}, best first.
   *
   * @param query a unit vector of the chunks' dimension
   * @param docId search only this document's chunks; null for every chunk
   */
  public List<ScoredChunk> search(float[] query, String docId, int k) {
    TopK top = new TopK(k);
    if (docId == null) {
      for (int i = 0; i < vectors.length; i++) {
        top.offer(score(query, i));
      }
    } else {
      for (int i : byDoc.getOrDefault(docId, new int[0])) {
        top.offer(score(query, i));
      }
    }
    return top.best();
  }

  private ScoredChunk score(float[] query, int i) {
    float[] vector = vectors[i];
    if (vector.length != query.length) {
      throw new IllegalArgumentException(
          "query has dimension "
              + query.length
              + " but chunk "
              + chunkIds[i]
              + " has "
              + vector.length
              + "; were they embedded with the same model?");
    }
    double dot = 0;
    for (int d = 0; d < vector.length; d++) {
      dot += (double) vector[d] * query[d];
    }
    return new ScoredChunk(chunkIds[i], docIds[i], dot);
  }
}
