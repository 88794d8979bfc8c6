package dev.infuse.udfs.retrieve;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.PriorityQueue;

/**
 * The best {@code k} chunks of a stream, in {@link ScoredChunk#BEST_FIRST} order, in O(n log k).
 */
public final class TopK {
  private final int k;

  /** Worst on top, so the head is what a better chunk evicts. */
  private final PriorityQueue<ScoredChunk> heap;

  public TopK(int k) {
    if (k < 1) {
      throw new IllegalArgumentException("k: got " + k + ", expected >= 1");
    }
    this.k = k;
    this.heap = new PriorityQueue<>(k + 1, ScoredChunk.BEST_FIRST.reversed());
  }

  public void offer(ScoredChunk chunk) {
    if (heap.size() < k) {
      heap.add(chunk);
    } else if (ScoredChunk.BEST_FIRST.compare(chunk, heap.peek()) < 0) {
      heap.poll();
      heap.add(chunk);
    }
  }

  public void offerAll(Collection<ScoredChunk> chunks) {
    chunks.forEach(this::offer);
  }

  /** The kept chunks, best first. */
  public List<ScoredChunk> best() {
    List<ScoredChunk> out = new ArrayList<>(heap);
    out.sort(ScoredChunk.BEST_FIRST);
    return out;
  }

  /** The best {@code k} of several ranked lists (the shards' local results): the global top k. */
  public static List<ScoredChunk> merge(
      Collection<? extends Collection<ScoredChunk>> lists, int k) {
    TopK top = new TopK(k);
    lists.forEach(top::offerAll);
    return top.best();
  }
}
