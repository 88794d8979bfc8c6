package dev.infuse.jobs.shards;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.infuse.jobs.SparkTestSession;
import dev.infuse.udfs.dedup.DedupConfig;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Collectors;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class NearDuplicatesTest {
  private static final StructType INPUT =
      new StructType()
          .add("row_id", DataTypes.StringType, false)
          .add("text", DataTypes.StringType, true)
          .add("source", DataTypes.StringType, true);

  private static SparkSession spark;
  private static List<Row> rows;

  @BeforeAll
  static void plant() {
    spark = SparkTestSession.get();
    Random random = new Random(11);
    List<String> vocabulary = new ArrayList<>();
    for (int i = 0; i < 2000; i++) {
      vocabulary.add("w" + Integer.toString(i, 36) + (char) ('a' + random.nextInt(26)));
    }
    rows = new ArrayList<>();
    // A cluster: the original (n-10) and five light edits of it (one or two words replaced each).
    List<String> original = randomWords(random, vocabulary, 200);
    rows.add(RowFactory.create("n-10", String.join(" ", original), "orig"));
    for (int e = 1; e <= 5; e++) {
      List<String> edited = new ArrayList<>(original);
      for (int k = 0; k < 1 + e % 2; k++) {
        edited.set(
            random.nextInt(edited.size()), vocabulary.get(random.nextInt(vocabulary.size())));
      }
      rows.add(RowFactory.create("n-1" + e, String.join(" ", edited), "edit"));
    }
    // Exact copies of a distinct document: differ only in case, punctuation and whitespace.
    String base = String.join(" ", randomWords(random, vocabulary, 150));
    rows.add(RowFactory.create("e-2", base, "base"));
    rows.add(RowFactory.create("e-1", "  " + base.toUpperCase() + "!!", "copy"));
    rows.add(RowFactory.create("e-3", base.replace(" ", ",\n "), "copy"));
    // Distinct documents, some short, one empty.
    for (int d = 0; d < 20; d++) {
      rows.add(
          RowFactory.create(
              String.format("d-%02d", d),
              String.join(" ", randomWords(random, vocabulary, 3 + d * 10)),
              "distinct"));
    }
    rows.add(RowFactory.create("z-empty", "", "distinct"));
  }

  @Test
  void plantedDuplicatesCollapseAndDistinctDocumentsSurvive() {
    Dataset<Row> input = spark.createDataFrame(rows, INPUT).repartition(3);
    try (NearDuplicates.Result result = new NearDuplicates(DedupConfig.defaults()).apply(input)) {
      List<String> kept =
          result
              .kept()
              .select("row_id")
              .as(org.apache.spark.sql.Encoders.STRING())
              .collectAsList()
              .stream()
              .sorted()
              .toList();
      Map<String, Row> drops =
          result.drops().collectAsList().stream()
              .collect(Collectors.toMap(r -> r.getString(0), r -> r));

      assertThat(kept)
          .contains("n-10", "e-1", "z-empty")
          .doesNotContain("n-11", "n-12", "n-13", "n-14", "n-15", "e-2", "e-3");
      for (int d = 0; d < 20; d++) {
        assertThat(kept).contains(String.format("d-%02d", d));
      }
      assertThat(kept.size() + drops.size()).isEqualTo(rows.size());
      assertThat(result.kept().columns()).containsExactly("row_id", "text", "source");
      for (int e = 1; e <= 5; e++) {
        Row drop = drops.get("n-1" + e);
        assertThat(drop.getString(1)).isEqualTo("n-10");
        assertThat(drop.getString(2)).isEqualTo(NearDuplicates.NEAR);
        assertThat(drop.getDouble(3)).isBetween(0.8, 1.0);
      }
      assertThat(drops.get("e-2").toSeq().mkString(",")).isEqualTo("e-2,e-1,exact,1.0");
      assertThat(drops.get("e-3").toSeq().mkString(",")).isEqualTo("e-3,e-1,exact,1.0");
      assertThat(drops).hasSize(7);
    }
  }

  @Test
  void anExactCopyOfANearDuplicatePointsAtTheClusterRepresentative() {
    List<Row> withCopy = new ArrayList<>(rows);
    Row edit = rows.get(3);
    withCopy.add(RowFactory.create("n-99", edit.getString(1).toUpperCase(), "copy of edit"));
    try (NearDuplicates.Result result =
        new NearDuplicates(DedupConfig.defaults()).apply(spark.createDataFrame(withCopy, INPUT))) {
      Row drop = result.drops().where("row_id = 'n-99'").first();
      assertThat(drop.getString(1)).isEqualTo("n-10");
      assertThat(drop.getString(2)).isEqualTo(NearDuplicates.NEAR);
      assertThat(result.kept().count() + result.drops().count()).isEqualTo(withCopy.size());
    }
  }

  @Test
  void sameSeedSameOutputWhateverThePartitioning() {
    NearDuplicates dedup = new NearDuplicates(DedupConfig.defaults().withSeed(7));
    List<String> first;
    List<String> second;
    try (NearDuplicates.Result a = dedup.apply(spark.createDataFrame(rows, INPUT).repartition(1))) {
      first = a.drops().orderBy("row_id").collectAsList().stream().map(Row::toString).toList();
    }
    try (NearDuplicates.Result b = dedup.apply(spark.createDataFrame(rows, INPUT).repartition(4))) {
      second = b.drops().orderBy("row_id").collectAsList().stream().map(Row::toString).toList();
    }
    assertThat(second).isEqualTo(first).hasSize(7);
  }

  @Test
  void connectedComponentsTakeTheSmallestVertexAcrossLongChains() {
    List<Row> edges = new ArrayList<>();
    // A chain v10 - v11 - ... - v39 (diameter 29) given in scrambled direction, and a separate
    // pair.
    for (int i = 10; i < 39; i++) {
      edges.add(
          i % 2 == 0
              ? RowFactory.create("v" + i, "v" + (i + 1))
              : RowFactory.create("v" + (i + 1), "v" + i));
    }
    edges.add(RowFactory.create("x2", "x1"));
    Map<String, String> labels = new HashMap<>();
    ConnectedComponents.labels(spark.createDataFrame(edges, BucketPairs.SCHEMA))
        .collectAsList()
        .forEach(r -> labels.put(r.getString(0), r.getString(1)));
    assertThat(labels).hasSize(32);
    assertThat(labels.get("v39")).isEqualTo("v10");
    assertThat(labels.get("v25")).isEqualTo("v10");
    assertThat(labels.get("x2")).isEqualTo("x1");
    assertThat(labels.get("x1")).isEqualTo("x1");
  }

  @Test
  void oversizedBucketsArePairedLinearly() {
    BucketPairs pairs = new BucketPairs(3);
    // Buckets as runs of sorted (band, band_key, row_id) rows: band 0 key 7 holds three ids (one
    // repeated), band 0 key 9 five, band 1 key 7 one.
    List<Row> keyed = new ArrayList<>();
    for (String id : List.of("a", "b", "b", "c")) {
      keyed.add(RowFactory.create(0, 7L, id));
    }
    for (String id : List.of("a", "b", "c", "d", "e")) {
      keyed.add(RowFactory.create(0, 9L, id));
    }
    keyed.add(RowFactory.create(1, 7L, "z"));
    List<String> found = new ArrayList<>();
    pairs.call(keyed.iterator()).forEachRemaining(r -> found.add(r.getString(0) + r.getString(1)));
    assertThat(found).containsExactly("ab", "ac", "bc", "ab", "ac", "bc", "ad", "cd", "ae", "de");
    assertThat(pairs.call(List.<Row>of().iterator())).isExhausted();
  }

  @Test
  void invalidConfigAndInputAreRefusedWithTheirNames() {
    assertThatThrownBy(() -> new NearDuplicates(new DedupConfig(5, 100, 16, 8, 0.8, 1, 100)))
        .hasMessageContaining("bands × rows: got 16 × 8 = 128, expected num_permutations = 100");
    Dataset<Row> noText = spark.createDataFrame(rows, INPUT).select("row_id");
    assertThatThrownBy(() -> new NearDuplicates(DedupConfig.defaults()).apply(noText))
        .hasMessageContaining("column 'text' is missing");
    Dataset<Row> numericId =
        spark.createDataFrame(rows, INPUT).selectExpr("length(row_id) as row_id", "text");
    assertThatThrownBy(() -> new NearDuplicates(DedupConfig.defaults()).apply(numericId))
        .hasMessageContaining("column 'row_id' has type int, expected string");
  }

  private static List<String> randomWords(Random random, List<String> vocabulary, int n) {
    List<String> words = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      words.add(vocabulary.get(random.nextInt(vocabulary.size())));
    }
    return words;
  }
}
