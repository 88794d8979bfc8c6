package dev.infuse.udfs.retrieve;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

class Bm25IndexTest {
  private static final List<ChunkText> CHUNKS =
      List.of(
          new ChunkText(
              "a1",
              "doc-a",
              "The company reported total revenue of 4.2 billion dollars in fiscal 2022."),
          new ChunkText(
              "a2", "doc-a", "Operating expenses rose because of higher marketing spend."),
          new ChunkText(
              "b1", "doc-b", "The river flooded the valley; farmers moved their cattle uphill."),
          new ChunkText(
              "b2", "doc-b", "Capital expenditure on the new dam was approved by the council."),
          new ChunkText("c1", "doc-c", "Revenues of the council came mostly from property taxes."));

  @Test
  void aChunkWithTheExactTermRanksFirst() {
    try (Bm25Index index = Bm25Index.build(CHUNKS)) {
      List<ScoredChunk> hits = index.search("Which farmers moved cattle?", null, 3);
      assertThat(hits).isNotEmpty();
      assertThat(hits.get(0).chunkId()).isEqualTo("b1");
      assertThat(hits).extracting(ScoredChunk::chunkId).doesNotHaveDuplicates();
      // Stemming matches "revenues" in the question with "revenue" in a1 and "Revenues" in c1.
      assertThat(index.search("revenues", null, 5))
          .extracting(ScoredChunk::chunkId)
          .containsExactlyInAnyOrder("a1", "c1");
    }
  }

  @Test
  void stopWordsAloneMatchNothingAndScoresDescend() {
    try (Bm25Index index = Bm25Index.build(CHUNKS)) {
      assertThat(index.search("the of by", null, 5)).isEmpty();
      List<ScoredChunk> hits = index.search("council dam capital", null, 5);
      assertThat(hits).isSortedAccordingTo(ScoredChunk.BEST_FIRST);
      assertThat(hits.get(0).chunkId()).isEqualTo("b2");
      assertThat(hits.get(0).score()).isGreaterThan(hits.get(1).score());
    }
  }

  @Test
  void aDocumentScopedSearchNeverReturnsAnotherDocumentsChunk() {
    try (Bm25Index index = Bm25Index.build(CHUNKS)) {
      for (String doc : List.of("doc-a", "doc-b", "doc-c", "doc-missing")) {
        List<ScoredChunk> hits = index.search("council revenue taxes river marketing dam", doc, 10);
        assertThat(hits).allSatisfy(hit -> assertThat(hit.docId()).isEqualTo(doc));
      }
      // The chunk that wins corpus-wide is not returned when another document is the scope.
      assertThat(index.search("council", null, 1).get(0).docId()).isNotEqualTo("doc-a");
      assertThat(index.search("council", "doc-a", 5)).isEmpty();
      // Within its document a chunk scores as it does corpus-wide: the filter does not score.
      ScoredChunk wide =
          index.search("council", null, 5).stream()
              .filter(h -> h.chunkId().equals("c1"))
              .findFirst()
              .orElseThrow();
      assertThat(index.search("council", "doc-c", 5)).containsExactly(wide);
    }
  }

  @Test
  void shardsSearchedWithTheCorpusStatisticsRankExactlyAsOneIndex() {
    Random random = new Random(7);
    String[] words =
        "alpha beta gamma delta epsilon zeta theta kappa lambda sigma river revenue tax cattle"
            .split(" ");
    List<ChunkText> corpus = new ArrayList<>();
    for (int i = 0; i < 300; i++) {
      StringBuilder text = new StringBuilder();
      int length = 5 + random.nextInt(40);
      for (int w = 0; w < length; w++) {
        text.append(words[random.nextInt(random.nextInt(words.length) + 1)]).append(' ');
      }
      corpus.add(new ChunkText(String.format("c%03d", i), "d" + (i % 17), text.toString()));
    }
    List<List<ChunkText>> shards = List.of(new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
    for (ChunkText chunk : corpus) {
      shards.get(Math.floorMod(chunk.docId().hashCode(), 3)).add(chunk);
    }
    List<String> queries =
        List.of("river revenue", "alpha alpha kappa", "sigma tax cattle delta", "zeta");
    try (Bm25Index whole = Bm25Index.build(corpus)) {
      List<Bm25Index> parts = shards.stream().map(Bm25Index::build).toList();
      Set<String> tokens = new HashSet<>();
      queries.forEach(q -> tokens.addAll(Bm25Index.tokens(q)));
      Bm25Statistics stats = Bm25Statistics.empty();
      for (Bm25Index part : parts) {
        stats = stats.plus(part.statistics(tokens));
      }
      assertThat(stats.withTerms(java.util.Map.of())).isEqualTo(whole.collectionStatistics());
      for (String query : queries) {
        for (String doc : new String[] {null, "d3", "d11"}) {
          List<ScoredChunk> expected = whole.search(query, doc, 10);
          List<List<ScoredChunk>> local = new ArrayList<>();
          for (Bm25Index part : parts) {
            local.add(part.search(Bm25Index.tokens(query), doc, 10, stats));
          }
          assertThat(TopK.merge(local, 10))
              .as(query + " in " + doc)
              .containsExactlyElementsOf(expected);
        }
      }
      // Without the corpus statistics a shard's scores differ: the statistics are what makes them
      // equal.
      ScoredChunk best = whole.search("river revenue", null, 1).get(0);
      Bm25Index home = parts.get(Math.floorMod(best.docId().hashCode(), 3));
      assertThat(home.search("river revenue", best.docId(), 10))
          .extracting(ScoredChunk::score)
          .doesNotContain(best.score());
      parts.forEach(Bm25Index::close);
    }
  }

  @Test
  void anIndexReopenedFromItsFilesSearchesTheSame() {
    try (Bm25Index index = Bm25Index.build(CHUNKS);
        Bm25Index reopened = Bm25Index.fromFiles(index.files())) {
      assertThat(reopened.size()).isEqualTo(5);
      assertThat(reopened.search("property taxes council", null, 5))
          .isEqualTo(index.search("property taxes council", null, 5));
      List<String> terms = new ArrayList<>();
      reopened.forEachTerm((term, counts) -> terms.add(term + ":" + counts.docFreq()));
      assertThat(terms).contains("council:2", "revenu:2", "cattl:1");
    }
  }
}
