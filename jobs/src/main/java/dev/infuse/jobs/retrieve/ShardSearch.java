package dev.infuse.jobs.retrieve;

import dev.infuse.udfs.retrieve.Bm25Index;
import dev.infuse.udfs.retrieve.Bm25Statistics;
import dev.infuse.udfs.retrieve.DenseIndex;
import dev.infuse.udfs.retrieve.ScoredChunk;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import scala.Tuple2;
import scala.Tuple3;

/**
 * Searches one shard for every query routed to it, as a batch: the shard's Lucene index is opened
 * once from its files and its chunks' vectors are gathered once, then each query gets the shard's
 * local top {@link SearchSettings#depth()} per ranking (BM25 scored with its corpus's statistics,
 * so local scores are the corpus-wide ones). Queries without a scope document search the whole
 * shard.
 *
 * <p>Per shard, each row led by its global shard number: targets {@code (global_shard, question_id,
 * corpus, scope_doc_id, tokens, vector)}, files {@code (global_shard, name, bytes)} and vectors
 * {@code (global_shard, chunk_id, doc_id, vector)}.
 */
final class ShardSearch
    implements FlatMapFunction<
        Tuple2<Integer, Tuple3<Iterable<Row>, Iterable<Row>, Iterable<Row>>>, Row> {
  private static final long serialVersionUID = 1L;

  static final String BM25 = "bm25";
  static final String DENSE = "dense";

  static final StructType SCHEMA =
      new StructType()
          .add("question_id", DataTypes.StringType, false)
          .add("ranking", DataTypes.StringType, false)
          .add("chunk_id", DataTypes.StringType, false)
          .add("doc_id", DataTypes.StringType, false)
          .add("score", DataTypes.DoubleType, false);

  private final SearchSettings settings;
  private final Broadcast<Map<String, Bm25Statistics>> statistics;

  ShardSearch(SearchSettings settings, Broadcast<Map<String, Bm25Statistics>> statistics) {
    this.settings = settings;
    this.statistics = statistics;
  }

  @Override
  public Iterator<Row> call(
      Tuple2<Integer, Tuple3<Iterable<Row>, Iterable<Row>, Iterable<Row>>> shard) {
    List<Row> out = new ArrayList<>();
    Iterator<Row> targets = shard._2()._1().iterator();
    if (!targets.hasNext()) {
      return out.iterator(); // no question for this shard: nothing is opened
    }
    Bm25Index bm25 = settings.retriever().usesBm25() ? openBm25(shard._2()._2()) : null;
    DenseIndex dense = settings.retriever().usesDense() ? dense(shard._2()._3()) : null;
    try {
      int depth = settings.depth();
      while (targets.hasNext()) {
        Row target = targets.next();
        String questionId = target.getString(1);
        String scope = target.isNullAt(3) ? null : target.getString(3);
        if (bm25 != null) {
          List<String> tokens = target.getList(4);
          Bm25Statistics corpus = statistics.value().get(target.getString(2));
          for (ScoredChunk hit : bm25.search(tokens, scope, depth, corpus)) {
            out.add(RowFactory.create(questionId, BM25, hit.chunkId(), hit.docId(), hit.score()));
          }
        }
        if (dense != null) {
          List<Float> boxed = target.getList(5);
          float[] query = new float[boxed.size()];
          for (int d = 0; d < query.length; d++) {
            query[d] = boxed.get(d);
          }
          for (ScoredChunk hit : dense.search(query, scope, depth)) {
            out.add(RowFactory.create(questionId, DENSE, hit.chunkId(), hit.docId(), hit.score()));
          }
        }
      }
    } finally {
      if (bm25 != null) {
        bm25.close();
      }
    }
    return out.iterator();
  }

  private static Bm25Index openBm25(Iterable<Row> files) {
    Map<String, byte[]> bytes = new LinkedHashMap<>();
    for (Row file : files) {
      bytes.put(file.getString(1), (byte[]) file.get(2));
    }
    // A shard the hash left without documents has no files: an empty index finds nothing.
    return bytes.isEmpty() ? Bm25Index.build(List.of()) : Bm25Index.fromFiles(bytes);
  }

  private static DenseIndex dense(Iterable<Row> vectors) {
    List<String> chunkIds = new ArrayList<>();
    List<String> docIds = new ArrayList<>();
    List<float[]> values = new ArrayList<>();
    for (Row row : vectors) {
      chunkIds.add(row.getString(1));
      docIds.add(row.getString(2));
      List<Float> boxed = row.getList(3);
      float[] vector = new float[boxed.size()];
      for (int d = 0; d < vector.length; d++) {
        vector[d] = boxed.get(d);
      }
      values.add(vector);
    }
    return new DenseIndex(chunkIds, docIds, values);
  }
}
