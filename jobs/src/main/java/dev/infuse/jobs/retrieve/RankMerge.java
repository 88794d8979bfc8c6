package dev.infuse.jobs.retrieve;

import dev.infuse.udfs.retrieve.RecallAtK;
import dev.infuse.udfs.retrieve.ReciprocalRankFusion;
import dev.infuse.udfs.retrieve.Retriever;
import dev.infuse.udfs.retrieve.ScoredChunk;
import dev.infuse.udfs.retrieve.TopK;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import scala.Tuple2;

/**
 * One question's shard results into its final ranking: each ranking's global top from the shards'
 * local tops ({@link TopK#merge}), fused by RRF for hybrid, cut to k. Emits one {@code chunk} row
 * per rank and one {@code question} row with the rank of the first gold-evidence chunk ({@link
 * RecallAtK}): -1 when the question has no known evidence, 0 when none was retrieved. Each chunk
 * row's first-stage rank and score are its rank and score here; {@link RerankRows} keeps them when
 * it reorders.
 *
 * <p>Per question: shard rows {@link ShardSearch#SCHEMA} and its query row {@code (question_id,
 * benchmark, gold, scope)}.
 */
final class RankMerge
    implements FlatMapFunction<Tuple2<String, Tuple2<Iterable<Row>, Iterable<Row>>>, Row> {
  private static final long serialVersionUID = 1L;

  static final String CHUNK = "chunk";
  static final String QUESTION = "question";

  static final StructType SCHEMA =
      new StructType()
          .add("kind", DataTypes.StringType, false)
          .add("question_id", DataTypes.StringType, false)
          .add("benchmark", DataTypes.StringType, false)
          .add("scope", DataTypes.StringType, false)
          .add("rank", DataTypes.IntegerType, true)
          .add("chunk_id", DataTypes.StringType, true)
          .add("doc_id", DataTypes.StringType, true)
          .add("score", DataTypes.DoubleType, true)
          .add("first_stage_rank", DataTypes.IntegerType, true)
          .add("first_stage_score", DataTypes.DoubleType, true)
          .add("gold_rank", DataTypes.IntegerType, true);

  private final SearchSettings settings;

  RankMerge(SearchSettings settings) {
    this.settings = settings;
  }

  @Override
  public Iterator<Row> call(Tuple2<String, Tuple2<Iterable<Row>, Iterable<Row>>> question) {
    String questionId = question._1();
    Iterator<Row> info = question._2()._2().iterator();
    if (!info.hasNext()) {
      throw new IllegalStateException(
          "shard results for question " + questionId + " without its query");
    }
    Row query = info.next();
    List<ScoredChunk> bm25 = new ArrayList<>();
    List<ScoredChunk> dense = new ArrayList<>();
    for (Row hit : question._2()._1()) {
      ScoredChunk chunk = new ScoredChunk(hit.getString(2), hit.getString(3), hit.getDouble(4));
      (ShardSearch.BM25.equals(hit.getString(1)) ? bm25 : dense).add(chunk);
    }
    List<ScoredChunk> ranked = rank(settings, bm25, dense);
    List<Row> out = new ArrayList<>();
    String benchmark = query.getString(1);
    String scope = query.getString(3);
    for (int i = 0; i < ranked.size(); i++) {
      ScoredChunk chunk = ranked.get(i);
      out.add(chunkRow(questionId, benchmark, scope, i + 1, chunk, i + 1, chunk.score()));
    }
    out.add(
        questionRow(
            questionId,
            benchmark,
            scope,
            goldRank(query.isNullAt(2) ? null : query.getList(2), ranked)));
    return out.iterator();
  }

  static Row chunkRow(
      String questionId,
      String benchmark,
      String scope,
      int rank,
      ScoredChunk chunk,
      int firstStageRank,
      double firstStageScore) {
    return RowFactory.create(
        CHUNK,
        questionId,
        benchmark,
        scope,
        rank,
        chunk.chunkId(),
        chunk.docId(),
        chunk.score(),
        firstStageRank,
        firstStageScore,
        null);
  }

  static Row questionRow(String questionId, String benchmark, String scope, int goldRank) {
    return RowFactory.create(
        QUESTION, questionId, benchmark, scope, null, null, null, null, null, null, goldRank);
  }

  /** The rank of the first gold chunk in {@code ranked}: -1 without known gold, 0 for none. */
  static int goldRank(List<String> goldDocIds, List<ScoredChunk> ranked) {
    Set<String> gold = goldDocIds == null ? Set.of() : new HashSet<>(goldDocIds);
    return gold.isEmpty() ? -1 : RecallAtK.firstGoldRank(ranked, gold);
  }

  /**
   * The final ranking from the shards' local results of each ranking (a single JVM passes its one
   * list per ranking): the same code serves both, so they agree by construction once the local
   * lists do.
   */
  static List<ScoredChunk> rank(
      SearchSettings settings, List<ScoredChunk> bm25Hits, List<ScoredChunk> denseHits) {
    int depth = settings.depth();
    List<ScoredChunk> bm25 = bm25Hits.isEmpty() ? List.of() : TopK.merge(List.of(bm25Hits), depth);
    List<ScoredChunk> dense =
        denseHits.isEmpty() ? List.of() : TopK.merge(List.of(denseHits), depth);
    if (settings.retriever() == Retriever.HYBRID) {
      return new ReciprocalRankFusion(settings.rrfK()).fuse(List.of(bm25, dense), settings.k());
    }
    List<ScoredChunk> single = settings.retriever() == Retriever.BM25 ? bm25 : dense;
    return single.subList(0, Math.min(settings.k(), single.size()));
  }
}
