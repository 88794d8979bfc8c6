package dev.infuse.jobs.retrieve;

import dev.infuse.udfs.model.ExecutorModels;
import dev.infuse.udfs.model.ModelSpec;
import dev.infuse.udfs.retrieve.CrossEncoder;
import dev.infuse.udfs.retrieve.Reranking;
import dev.infuse.udfs.retrieve.ScoredChunk;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.sql.Row;
import scala.Tuple2;

/**
 * The cross-encoder stage ({@code retrieve.rerank}) for one question: its first-stage chunks, best
 * first, are scored against its query by the JVM's shared {@link CrossEncoder} ({@link
 * ExecutorModels}), in batches, and the best {@code topK} by that score become ranks 1..topK. Each
 * row keeps its first-stage rank and score; its {@code score} becomes the rerank score. The
 * question row's gold rank is recomputed on the new order.
 *
 * <p>Per question: candidate rows {@code (rank, chunk_id, doc_id, score, text)} of {@link
 * RankMerge}'s first-stage ranking and its query row {@code (question_id, benchmark, scope, query,
 * gold)}. Emits {@link RankMerge#SCHEMA} rows.
 */
final class RerankRows
    implements FlatMapFunction<Tuple2<String, Tuple2<Iterable<Row>, Iterable<Row>>>, Row> {
  private static final long serialVersionUID = 1L;

  private final ModelSpec<CrossEncoder> model;
  private final int topK;

  RerankRows(ModelSpec<CrossEncoder> model, int topK) {
    this.model = model;
    this.topK = topK;
  }

  @Override
  public Iterator<Row> call(Tuple2<String, Tuple2<Iterable<Row>, Iterable<Row>>> question) {
    String questionId = question._1();
    Iterator<Row> info = question._2()._2().iterator();
    if (!info.hasNext()) {
      throw new IllegalStateException(
          "first-stage chunks for question " + questionId + " without its query");
    }
    Row query = info.next();
    List<Row> candidates = new ArrayList<>();
    question._2()._1().forEach(candidates::add);
    candidates.sort(Comparator.comparingInt(row -> row.getInt(0)));
    List<ScoredChunk> firstStage = new ArrayList<>(candidates.size());
    List<String> texts = new ArrayList<>(candidates.size());
    for (Row row : candidates) {
      firstStage.add(new ScoredChunk(row.getString(1), row.getString(2), row.getDouble(3)));
      texts.add(row.getString(4));
    }
    List<Row> out = new ArrayList<>();
    String benchmark = query.getString(1);
    String scope = query.getString(2);
    List<ScoredChunk> reranked = new ArrayList<>();
    if (!firstStage.isEmpty()) {
      float[] scores = ExecutorModels.get(model).score(query.getString(3), texts);
      List<Reranking.Reranked> top = Reranking.rerank(firstStage, scores, topK);
      for (int i = 0; i < top.size(); i++) {
        Reranking.Reranked chunk = top.get(i);
        ScoredChunk scored =
            new ScoredChunk(chunk.chunk().chunkId(), chunk.chunk().docId(), chunk.rerankScore());
        reranked.add(scored);
        out.add(
            RankMerge.chunkRow(
                questionId,
                benchmark,
                scope,
                i + 1,
                scored,
                chunk.firstStageRank(),
                chunk.firstStageScore()));
      }
    }
    out.add(
        RankMerge.questionRow(
            questionId,
            benchmark,
            scope,
            RankMerge.goldRank(query.isNullAt(4) ? null : query.getList(4), reranked)));
    return out.iterator();
  }
}
