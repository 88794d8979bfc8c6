package dev.infuse.jobs.retrieve;

import static org.assertj.core.api.Assertions.assertThat;

import dev.infuse.jobs.SparkTestSession;
import dev.infuse.udfs.retrieve.Bm25Index;
import dev.infuse.udfs.retrieve.ChunkText;
import dev.infuse.udfs.retrieve.DenseIndex;
import dev.infuse.udfs.retrieve.Retriever;
import dev.infuse.udfs.retrieve.ScoredChunk;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Retrieval on Spark (two corpora split into several shards, inputs in several partitions) against
 * a single JVM holding one index per corpus: the same chunks, ranks and scores for every retriever
 * and scope.
 */
class RetrieveAtScaleTest {
  private static final String[] WORDS =
      ("revenue margin tax river cattle council dam flood harvest audit"
              + " dividend lease patient dose fever scan ward nurse ledger bond")
          .split(" ");
  private static final int DIMENSION = 8;

  private static SparkSession spark;
  private static JavaSparkContext jsc;
  private static final List<Row> CHUNKS = new ArrayList<>();
  private static final Map<String, float[]> VECTORS = new HashMap<>();
  private static final List<Row> QUERIES = new ArrayList<>();
  private static IndexJob.Built built;

  @BeforeAll
  static void corpus() {
    spark = SparkTestSession.get();
    jsc = JavaSparkContext.fromSparkContext(spark.sparkContext());
    Random random = new Random(11);
    for (String corpus : List.of("finance", "clinic")) {
      int docs = corpus.equals("finance") ? 23 : 9;
      for (int d = 0; d < docs; d++) {
        int chunks = 1 + random.nextInt(8);
        for (int c = 0; c < chunks; c++) {
          String chunkId = corpus + "-" + d + "-" + c;
          CHUNKS.add(
              RowFactory.create(
                  corpus, chunkId, corpus + ":doc" + d, text(random, 6 + random.nextInt(50))));
          VECTORS.put(chunkId, unit(random));
        }
      }
    }
    for (int q = 0; q < 40; q++) {
      String corpus = q % 3 == 0 ? "clinic" : "finance";
      // Every other question is about one document; the rest search their whole corpus.
      String scope =
          q % 2 == 0 ? corpus + ":doc" + random.nextInt(corpus.equals("finance") ? 23 : 9) : null;
      String question = text(random, 2 + random.nextInt(5)) + (q % 7 == 0 ? " of the and" : "");
      QUERIES.add(
          RowFactory.create(
              "q" + q,
              corpus.equals("finance") ? "financebench" : "longhealth",
              corpus,
              scope,
              Bm25Index.tokens(question).toArray(String[]::new),
              boxed(unit(random)),
              null,
              scope == null ? "corpus" : "document",
              question));
    }
    // 25 chunks per shard: the finance corpus gets several shards, and the inputs come in several
    // partitions.
    built = IndexJob.build(spark, chunks(), 25, 0, "test");
  }

  @AfterAll
  static void release() {
    built.rows().unpersist();
  }

  @Test
  void everyRetrieverOnShardsGivesWhatOneJvmGives() {
    assertThat(built.manifest().corpora().get("finance").shards()).isGreaterThan(3);
    assertThat(built.manifest().corpora().get("clinic").shards()).isGreaterThan(1);
    for (Retriever retriever : Retriever.values()) {
      SearchSettings settings = new SearchSettings(retriever, 5, 12, 60);
      Dataset<Row> merged =
          RetrieveJob.search(
              spark,
              queries(),
              built.files(),
              built.terms(),
              vectors(),
              built.manifest(),
              settings);
      Map<String, List<ScoredChunk>> spark = new HashMap<>();
      for (Row row :
          merged.filter("kind = 'chunk'").orderBy("question_id", "rank").collectAsList()) {
        spark
            .computeIfAbsent(row.getString(1), q -> new ArrayList<>())
            .add(
                new ScoredChunk(
                    row.getAs("chunk_id"), row.getAs("doc_id"), row.<Double>getAs("score")));
        // Without a reranker the first stage's rank and score are the final ones.
        assertThat(row.<Integer>getAs("first_stage_rank")).isEqualTo(row.<Integer>getAs("rank"));
        assertThat(row.<Double>getAs("first_stage_score")).isEqualTo(row.<Double>getAs("score"));
        assertThat(row.<String>getAs("scope"))
            .isEqualTo(row.getString(1).matches("q[0-9]*[02468]") ? "document" : "corpus");
      }
      assertThat(merged.filter("kind = 'question'").count()).isEqualTo(QUERIES.size());
      int nonEmpty = 0;
      for (Row query : QUERIES) {
        List<ScoredChunk> expected = singleJvm(query, settings);
        List<ScoredChunk> actual = spark.getOrDefault(query.getString(0), List.of());
        assertThat(actual)
            .as(retriever + " " + query.getString(0))
            .containsExactlyElementsOf(expected);
        if (!query.isNullAt(3)) {
          assertThat(actual)
              .allSatisfy(hit -> assertThat(hit.docId()).isEqualTo(query.getString(3)));
        } else {
          String corpusPrefix = query.getString(2) + ":";
          assertThat(actual).allSatisfy(hit -> assertThat(hit.docId()).startsWith(corpusPrefix));
        }
        nonEmpty += actual.isEmpty() ? 0 : 1;
      }
      assertThat(nonEmpty).isGreaterThan(QUERIES.size() / 2);
    }
  }

  /**
   * The reference: one Lucene index and one vector set per corpus, in this JVM, with their own
   * statistics.
   */
  private static List<ScoredChunk> singleJvm(Row query, SearchSettings settings) {
    String corpus = query.getString(2);
    String scope = query.isNullAt(3) ? null : query.getString(3);
    List<ChunkText> texts = new ArrayList<>();
    List<String> ids = new ArrayList<>();
    List<String> docs = new ArrayList<>();
    List<float[]> vectors = new ArrayList<>();
    for (Row chunk : CHUNKS) {
      if (chunk.getString(0).equals(corpus)) {
        texts.add(new ChunkText(chunk.getString(1), chunk.getString(2), chunk.getString(3)));
        ids.add(chunk.getString(1));
        docs.add(chunk.getString(2));
        vectors.add(VECTORS.get(chunk.getString(1)));
      }
    }
    List<ScoredChunk> bm25 = List.of();
    if (settings.retriever().usesBm25()) {
      try (Bm25Index index = Bm25Index.build(texts)) {
        bm25 =
            index.search(
                java.util.Arrays.asList((String[]) query.get(4)), scope, settings.depth(), null);
      }
    }
    List<ScoredChunk> dense = List.of();
    if (settings.retriever().usesDense()) {
      Float[] boxed = (Float[]) query.get(5);
      float[] vector = new float[boxed.length];
      for (int d = 0; d < vector.length; d++) {
        vector[d] = boxed[d];
      }
      dense = new DenseIndex(ids, docs, vectors).search(vector, scope, settings.depth());
    }
    return RankMerge.rank(settings, bm25, dense);
  }

  private static Dataset<Row> chunks() {
    StructType schema =
        new StructType()
            .add("corpus", DataTypes.StringType)
            .add("chunk_id", DataTypes.StringType)
            .add("doc_id", DataTypes.StringType)
            .add("text", DataTypes.StringType);
    return spark.createDataFrame(jsc.parallelize(CHUNKS, 4), schema);
  }

  private static Dataset<Row> vectors() {
    List<Row> rows = new ArrayList<>();
    for (Row chunk : CHUNKS) {
      rows.add(
          RowFactory.create(
              chunk.getString(0),
              chunk.getString(1),
              chunk.getString(2),
              boxed(VECTORS.get(chunk.getString(1)))));
    }
    StructType schema =
        new StructType()
            .add("corpus", DataTypes.StringType)
            .add("chunk_id", DataTypes.StringType)
            .add("doc_id", DataTypes.StringType)
            .add("vector", DataTypes.createArrayType(DataTypes.FloatType, false));
    return spark.createDataFrame(jsc.parallelize(rows, 3), schema);
  }

  private static Dataset<Row> queries() {
    return spark.createDataFrame(jsc.parallelize(QUERIES, 3), QueryRows.SCHEMA);
  }

  private static String text(Random random, int words) {
    StringBuilder text = new StringBuilder();
    for (int w = 0; w < words; w++) {
      // Skewed word choice, so term frequencies and document frequencies vary.
      text.append(WORDS[random.nextInt(random.nextInt(WORDS.length) + 1)]).append(' ');
    }
    return text.toString().trim();
  }

  private static float[] unit(Random random) {
    float[] v = new float[DIMENSION];
    double norm = 0;
    for (int d = 0; d < DIMENSION; d++) {
      v[d] = (float) random.nextGaussian();
      norm += v[d] * v[d];
    }
    for (int d = 0; d < DIMENSION; d++) {
      v[d] = (float) (v[d] / Math.sqrt(norm));
    }
    return v;
  }

  private static Float[] boxed(float[] v) {
    Float[] out = new Float[v.length];
    for (int d = 0; d < v.length; d++) {
      out[d] = v[d];
    }
    return out;
  }
}
