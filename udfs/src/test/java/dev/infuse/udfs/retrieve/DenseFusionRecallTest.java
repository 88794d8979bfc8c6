package dev.infuse.udfs.retrieve;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class DenseFusionRecallTest {
  private static float[] unit(double angleDegrees) {
    double r = Math.toRadians(angleDegrees);
    return new float[] {(float) Math.cos(r), (float) Math.sin(r)};
  }

  @Test
  void denseSearchRanksByCosineWithinTheScope() {
    DenseIndex index =
        new DenseIndex(
            List.of("x1", "x2", "y1", "y2"),
            List.of("x", "x", "y", "y"),
            List.of(unit(0), unit(50), unit(10), unit(90)));
    List<ScoredChunk> all = index.search(unit(5), null, 3);
    assertThat(all).extracting(ScoredChunk::chunkId).containsExactly("x1", "y1", "x2");
    assertThat(all.get(0).score()).isCloseTo(Math.cos(Math.toRadians(5)), within(1e-6));
    assertThat(index.search(unit(5), "y", 3))
        .extracting(ScoredChunk::chunkId)
        .containsExactly("y1", "y2");
    assertThat(index.search(unit(5), "z", 3)).isEmpty();
  }

  @Test
  void reciprocalRankFusionOnAHandBuiltCase() {
    // bm25: a, b, c    dense: c, a, d    with k = 60:
    // a = 1/61 + 1/62, c = 1/63 + 1/61, b = 1/62, d = 1/63
    List<ScoredChunk> bm25 =
        List.of(
            new ScoredChunk("a", "d1", 9),
            new ScoredChunk("b", "d1", 5),
            new ScoredChunk("c", "d2", 1));
    List<ScoredChunk> dense =
        List.of(
            new ScoredChunk("c", "d2", 0.9),
            new ScoredChunk("a", "d1", 0.8),
            new ScoredChunk("d", "d3", 0.7));
    List<ScoredChunk> fused = new ReciprocalRankFusion(60).fuse(List.of(bm25, dense), 4);
    assertThat(fused).extracting(ScoredChunk::chunkId).containsExactly("a", "c", "b", "d");
    assertThat(fused.get(0).score()).isCloseTo(1.0 / 61 + 1.0 / 62, within(1e-12));
    assertThat(fused.get(1).score()).isCloseTo(1.0 / 61 + 1.0 / 63, within(1e-12));
    assertThat(fused.get(2).score()).isCloseTo(1.0 / 62, within(1e-12));
    assertThat(fused.get(3)).isEqualTo(new ScoredChunk("d", "d3", 1.0 / 63));
    // k = 0 weighs the top ranks more: a (1 + 1/2) still wins; only the top 2 are kept.
    assertThat(new ReciprocalRankFusion(0).fuse(List.of(bm25, dense), 2))
        .extracting(ScoredChunk::chunkId)
        .containsExactly("a", "c");
  }

  @Test
  void recallAtKOnAHandBuiltCase() {
    List<ScoredChunk> q1 =
        List.of(
            new ScoredChunk("c1", "p7", 3),
            new ScoredChunk("c2", "p9", 2),
            new ScoredChunk("c3", "p1", 1));
    List<ScoredChunk> q2 = List.of(new ScoredChunk("c4", "p2", 3), new ScoredChunk("c5", "p3", 2));
    Set<String> gold1 = Set.of("p1", "p4"); // found at rank 3
    Set<String> gold2 = Set.of("p2"); // found at rank 1
    Set<String> gold3 = Set.of("p8"); // q1's ranking, never found
    assertThat(RecallAtK.firstGoldRank(q1, gold1)).isEqualTo(3);
    assertThat(RecallAtK.firstGoldRank(q1, gold3)).isZero();
    long hitsAt1 =
        List.of(
                RecallAtK.hit(q1, gold1, 1),
                RecallAtK.hit(q2, gold2, 1),
                RecallAtK.hit(q1, gold3, 1))
            .stream()
            .filter(h -> h)
            .count();
    long hitsAt3 =
        List.of(
                RecallAtK.hit(q1, gold1, 3),
                RecallAtK.hit(q2, gold2, 3),
                RecallAtK.hit(q1, gold3, 3))
            .stream()
            .filter(h -> h)
            .count();
    assertThat(RecallAtK.recall(hitsAt1, 3)).isCloseTo(1.0 / 3, within(1e-12));
    assertThat(RecallAtK.recall(hitsAt3, 3)).isCloseTo(2.0 / 3, within(1e-12));
    assertThat(RecallAtK.hit(q2, gold2, 10)).isTrue();
    assertThat(RecallAtK.recall(0, 0)).isZero();
    assertThatThrownBy(() -> RecallAtK.hit(q1, Set.of(), 1))
        .hasMessageContaining("no gold evidence");
  }

  @Test
  void chunkOrderPutsTheBestChunkFirstOrLast() {
    List<String> ranked = List.of("rank1", "rank2", "rank3");
    assertThat(ChunkOrder.fromName("best_first").arrange(ranked))
        .containsExactly("rank1", "rank2", "rank3");
    assertThat(ChunkOrder.fromName("best_last").arrange(ranked))
        .containsExactly("rank3", "rank2", "rank1");
    assertThat(ranked).containsExactly("rank1", "rank2", "rank3");
    assertThatThrownBy(() -> ChunkOrder.fromName("middle"))
        .hasMessage("got middle, expected best_first or best_last");
    assertThat(Retriever.fromName("hybrid").usesBm25()).isTrue();
    assertThatThrownBy(() -> Retriever.fromName("splade"))
        .hasMessage("got splade, expected bm25, dense or hybrid");
  }
}
