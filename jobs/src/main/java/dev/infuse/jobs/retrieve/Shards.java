package dev.infuse.jobs.retrieve;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.pmod;
import static org.apache.spark.sql.functions.xxhash64;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * Which shard a chunk lives in: {@code pmod(xxhash64(doc_id), shards of its corpus)}. Hashing the
 * document, not the chunk, keeps a document's chunks together, so a document-scoped question
 * searches one shard. {@code index} and {@code retrieve} both place rows with this one expression.
 */
final class Shards {
  private Shards() {}

  /**
   * A corpus with {@code chunks} chunks gets ceil(chunks / chunksPerShard) shards, at least one.
   */
  static int count(long chunks, int chunksPerShard) {
    return (int) Math.max(1, (chunks + chunksPerShard - 1) / chunksPerShard);
  }

  /**
   * The shard within its corpus of a row with {@code doc_id}, given the corpus's {@code n_shards}.
   */
  static Column shardOf(Column docId, Column shards) {
    return pmod(xxhash64(docId), shards.cast("long")).cast("int");
  }

  /**
   * A small table {@code (corpus, n_shards, shard_offset)} to join on corpus; the global shard
   * number of shard s of a corpus is {@code shard_offset + s}.
   */
  static Dataset<Row> table(
      SparkSession spark, Map<String, Integer> shards, Map<String, Integer> offsets) {
    List<Row> rows = new ArrayList<>();
    shards.forEach((corpus, n) -> rows.add(RowFactory.create(corpus, n, offsets.get(corpus))));
    StructType schema =
        new StructType()
            .add("corpus", DataTypes.StringType, false)
            .add("n_shards", DataTypes.IntegerType, false)
            .add("shard_offset", DataTypes.IntegerType, false);
    return spark.createDataFrame(rows, schema);
  }

  /**
   * {@code rows} (with corpus and doc_id) plus {@code shard}; rows of a corpus not in {@code
   * shards} are dropped.
   */
  static Dataset<Row> place(
      SparkSession spark,
      Dataset<Row> rows,
      Map<String, Integer> shards,
      Map<String, Integer> offsets) {
    return rows.join(
            org.apache.spark.sql.functions.broadcast(table(spark, shards, offsets)), "corpus")
        .withColumn("shard", shardOf(col("doc_id"), col("n_shards")))
        .drop("n_shards", "shard_offset");
  }
}
