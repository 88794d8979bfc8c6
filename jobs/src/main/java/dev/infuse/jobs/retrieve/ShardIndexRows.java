package dev.infuse.jobs.retrieve;

import dev.infuse.udfs.retrieve.Bm25Index;
import dev.infuse.udfs.retrieve.Bm25Statistics;
import dev.infuse.udfs.retrieve.ChunkText;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * Builds the Lucene index of each shard in a partition. Input rows are {@code (corpus, shard,
 * chunk_id, doc_id, text)} sorted by (corpus, shard, chunk_id), so a shard's chunks are consecutive
 * and go into its index in a fixed order. For each shard it emits the index's files, its term
 * counts and one row of collection counts; one shard's chunks are in memory at a time.
 */
final class ShardIndexRows implements FlatMapFunction<Iterator<Row>, Row> {
  private static final long serialVersionUID = 1L;

  static final String FILE = "file";
  static final String TERM = "term";
  static final String COLLECTION = "collection";

  static final StructType SCHEMA =
      new StructType()
          .add("kind", DataTypes.StringType, false)
          .add("corpus", DataTypes.StringType, false)
          .add("shard", DataTypes.IntegerType, false)
          .add("name", DataTypes.StringType, true)
          .add("bytes", DataTypes.BinaryType, true)
          .add("doc_freq", DataTypes.LongType, true)
          .add("total_term_freq", DataTypes.LongType, true)
          .add("max_doc", DataTypes.LongType, true)
          .add("doc_count", DataTypes.LongType, true)
          .add("sum_doc_freq", DataTypes.LongType, true)
          .add("sum_total_term_freq", DataTypes.LongType, true);

  @Override
  public Iterator<Row> call(Iterator<Row> rows) {
    List<Row> out = new ArrayList<>();
    List<ChunkText> shardChunks = new ArrayList<>();
    String corpus = null;
    int shard = -1;
    while (rows.hasNext()) {
      Row row = rows.next();
      String rowCorpus = row.getString(0);
      int rowShard = row.getInt(1);
      if (corpus != null && (!corpus.equals(rowCorpus) || shard != rowShard)) {
        emit(corpus, shard, shardChunks, out);
        shardChunks.clear();
      }
      corpus = rowCorpus;
      shard = rowShard;
      shardChunks.add(new ChunkText(row.getString(2), row.getString(3), row.getString(4)));
    }
    if (corpus != null) {
      emit(corpus, shard, shardChunks, out);
    }
    return out.iterator();
  }

  private static void emit(String corpus, int shard, List<ChunkText> chunks, List<Row> out) {
    try (Bm25Index index = Bm25Index.build(chunks)) {
      for (Map.Entry<String, byte[]> file : index.files().entrySet()) {
        out.add(
            RowFactory.create(
                FILE,
                corpus,
                shard,
                file.getKey(),
                file.getValue(),
                null,
                null,
                null,
                null,
                null,
                null));
      }
      index.forEachTerm(
          (term, counts) ->
              out.add(
                  RowFactory.create(
                      TERM,
                      corpus,
                      shard,
                      term,
                      null,
                      counts.docFreq(),
                      counts.totalTermFreq(),
                      null,
                      null,
                      null,
                      null)));
      Bm25Statistics stats = index.collectionStatistics();
      out.add(
          RowFactory.create(
              COLLECTION,
              corpus,
              shard,
              null,
              null,
              null,
              null,
              stats.maxDoc(),
              stats.docCount(),
              stats.sumDocFreq(),
              stats.sumTotalTermFreq()));
    }
  }
}
