package dev.infuse.jobs.embed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.infuse.jobs.QualitySample;
import dev.infuse.jobs.SparkTestSession;
import dev.infuse.jobs.SparkTestSession.CliResult;
import dev.infuse.jobs.io.Warehouse;
import dev.infuse.udfs.embed.EmbedderSpec;
import dev.infuse.udfs.model.ExecutorModels;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;

class EmbedJobTest {
  private final SparkSession spark = SparkTestSession.get();

  @Test
  void writesOneUnitVectorPerChunkAndARerunEmbedsNothing() {
    // The sample ingested and chunked to 1024 tokens, built once per JVM.
    String warehouse = QualitySample.chunkedCopy(1024, "embed");

    // warn (truncation, one forward pass per chunk) keeps this test as cheap as it was; the
    // windowed default has its own test below.
    CliResult first =
        SparkTestSession.cli(
            "embed",
            "--warehouse",
            warehouse,
            "--device",
            "cpu",
            "--batch-size",
            "8",
            "--set",
            "embed.long_text=warn");
    assertThat(first.code()).as(first.toString()).isZero();
    Warehouse w = new Warehouse(spark, warehouse);
    w.registerViews();
    long chunks = w.read("chunks").count();
    Row stats =
        spark
            .sql(
                "SELECT count(*), count(DISTINCT chunk_id), min(dimension), max(dimension),"
                    + " max(abs(aggregate(vector, 0D, (a, x) -> a + x * x) - 1)), count(DISTINCT model) FROM chunk_embeddings")
            .head();
    assertThat(stats.getLong(0)).isEqualTo(chunks).isGreaterThan(5);
    assertThat(stats.getLong(1)).isEqualTo(chunks);
    assertThat(stats.getInt(2)).isEqualTo(384);
    assertThat(stats.getInt(3)).isEqualTo(384);
    assertThat(stats.getDouble(4)).isLessThan(1e-4);
    assertThat(
            spark
                .sql(
                    "SELECT count(*) FROM chunk_embeddings e JOIN chunks c USING (chunk_id)"
                        + " WHERE e.doc_id = c.doc_id AND e.text_sha256 = sha2(c.text, 256)"
                        + " AND e.model = 'all-minilm-l6-v2'")
                .head()
                .getLong(0))
        .isEqualTo(chunks);
    assertThat(first.out()).contains(chunks + " embedded, 0 already up to date, 0 quarantined");
    // 1024-token chunks are longer than MiniLM's 256-token window: warn counts and says so.
    long truncated = lastRunCount(w, "truncated");
    assertThat(truncated)
        .isGreaterThan(chunks / 2)
        .isLessThanOrEqualTo(chunks)
        .isEqualTo(lastRunCount(w, "over_window"));
    assertThat(first.out())
        .contains(
            "WARNING: "
                + truncated
                + " of the "
                + chunks
                + " embedded text(s) are longer than the model's 256-token window and were"
                + " truncated to it (embed.long_text: warn)");

    long version = w.version("chunk_embeddings");
    CliResult again =
        SparkTestSession.cli("embed", "--warehouse", warehouse, "--set", "embed.long_text=warn");
    assertThat(again.code()).as(again.toString()).isZero();
    assertThat(again.out())
        .contains("0 embedded, " + chunks + " already up to date")
        .contains("chunk_embeddings: unchanged (no commit)");
    assertThat(w.version("chunk_embeddings")).isEqualTo(version);

    // Re-chunking replaces the chunks: their embeddings follow, and the old ones are deleted.
    assertThat(
            SparkTestSession.cli("chunk", "--warehouse", warehouse, "--max-tokens", "2048").code())
        .isZero();
    CliResult rechunked =
        SparkTestSession.cli("embed", "--warehouse", warehouse, "--set", "embed.long_text=warn");
    assertThat(rechunked.code()).as(rechunked.toString()).isZero();
    assertThat(
            spark
                .sql(
                    "SELECT count(*) FROM chunk_embeddings e LEFT ANTI JOIN chunks c USING (chunk_id)")
                .head()
                .getLong(0))
        .isZero();
    assertThat(w.read("chunk_embeddings").count()).isEqualTo(w.read("chunks").count());
    Row runs =
        w.read("runs")
            .filter("job = 'embed'")
            .selectExpr(
                "count(*)",
                "sum(CASE WHEN status = 'succeeded' AND input_count = output_count + quarantined_count"
                    + " THEN 1 ELSE 0 END)")
            .head();
    assertThat(runs.getLong(0)).isEqualTo(3);
    assertThat(runs.getLong(1)).isEqualTo(3);
  }

  @Test
  void theDefaultWindowsLongTextsUnderItsOwnModelIdAndEmbedsThePrefixedText() {
    String warehouse = QualitySample.chunkedCopy(1024, "embed-window");
    // Re-chunk with a metadata prefix: what is embedded is the prefix, then the chunk text.
    CliResult chunked =
        SparkTestSession.cli(
            "chunk",
            "--warehouse",
            warehouse,
            "--max-tokens",
            "1024",
            "--set",
            "chunk.prefix_template=Title: {title} | ");
    assertThat(chunked.code()).as(chunked.toString()).isZero();
    CliResult windowed = SparkTestSession.cli("embed", "--warehouse", warehouse, "--device", "cpu");
    assertThat(windowed.code()).as(windowed.toString()).isZero();
    Warehouse w = new Warehouse(spark, warehouse);
    w.registerViews();
    long chunks = w.read("chunks").count();
    long overWindow = lastRunCount(w, "over_window");
    assertThat(overWindow).isGreaterThan(chunks / 2).isEqualTo(lastRunCount(w, "windowed"));
    assertThat(windowed.out())
        .contains(
            overWindow
                + " of the "
                + chunks
                + " embedded text(s) are longer than the model's 256-token window: embedded as"
                + " overlapping windows and mean-pooled (embed.long_text: window)");
    assertThat(
            spark
                .sql(
                    "SELECT count(*) FROM chunk_embeddings e JOIN chunks c USING (chunk_id)"
                        + " JOIN documents d ON d.doc_id = c.doc_id"
                        + " WHERE c.context_prefix = concat('Title: ', d.title, ' | ')"
                        + " AND e.text_sha256 = sha2(concat(c.context_prefix, c.text), 256)"
                        + " AND e.model = 'all-minilm-l6-v2+window256-overlap64'")
                .head()
                .getLong(0))
        .isEqualTo(chunks);
  }

  /** A detailed count of the latest embed run. */
  private static long lastRunCount(Warehouse w, String key) {
    return w.read("runs")
        .filter("job = 'embed'")
        .orderBy(org.apache.spark.sql.functions.col("started_at").desc())
        .selectExpr("counts['" + key + "']")
        .head()
        .getLong(0);
  }

  @Test
  void manyPartitionsOfOneExecutorShareOneModelLoad() {
    // A batch size no other test uses gives this spec its own cache key, so the count is this
    // test's alone.
    EmbedderSpec spec = new EmbedderSpec("default", "cpu", 13, 1, "window");
    List<Row> rows = new ArrayList<>();
    for (int i = 0; i < 3000; i++) {
      rows.add(
          RowFactory.create(
              "c" + i,
              "d" + (i % 7),
              "row " + i + " is about " + (i % 2 == 0 ? "rivers" : "taxes"),
              "0".repeat(64)));
    }
    StructType schema =
        new StructType()
            .add("chunk_id", DataTypes.StringType)
            .add("doc_id", DataTypes.StringType)
            .add("text", DataTypes.StringType)
            .add("text_sha256", DataTypes.StringType);
    Dataset<Row> chunks =
        spark.createDataFrame(
            new JavaSparkContext(spark.sparkContext()).parallelize(rows, 6), schema);

    Dataset<Row> out = EmbedJob.transform(spark, chunks, spec, spec.vectorsModelId());
    assertThat(out.rdd().getNumPartitions()).isEqualTo(6);
    List<Row> embedded = out.filter("kind = 'embedding'").orderBy("chunk_id").collectAsList();
    assertThat(embedded).hasSize(3000);
    assertThat(ExecutorModels.loadCount(spec.cacheKey())).isEqualTo(1);

    // Each row carries its own text's vector, whatever window and batch it was embedded in.
    Row c42 = embedded.stream().filter(r -> r.getString(1).equals("c42")).findFirst().orElseThrow();
    float[] alone = ExecutorModels.get(spec).embed(List.of("row 42 is about rivers"))[0];
    List<Float> vector = c42.getList(6);
    for (int d = 0; d < alone.length; d++) {
      assertThat(vector.get(d)).isCloseTo(alone[d], within(1e-5f));
    }
  }

  @Test
  void aChunkTheModelRejectsBecomesAFailureRowWithItsReasonAndTheRestAreEmbedded() {
    List<Row> rows = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      rows.add(
          RowFactory.create("c" + i, "d", i == 17 ? "POISON" : "fine text " + i, "0".repeat(64)));
    }
    StructType schema =
        new StructType()
            .add("chunk_id", DataTypes.StringType)
            .add("doc_id", DataTypes.StringType)
            .add("text", DataTypes.StringType)
            .add("text_sha256", DataTypes.StringType);
    Dataset<Row> chunks =
        spark.createDataFrame(
            new JavaSparkContext(spark.sparkContext()).parallelize(rows, 2), schema);

    List<Row> out =
        EmbedJob.transform(spark, chunks, new PoisonSpec(), "fake@1", 4).collectAsList();
    assertThat(out).hasSize(40);
    List<Row> failures = out.stream().filter(r -> r.getString(0).equals("failure")).toList();
    assertThat(failures)
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.getString(1)).isEqualTo("c17");
              assertThat(r.getString(7)).isEqualTo("POISON");
              assertThat(r.getString(8))
                  .isEqualTo("embedding failed: java.lang.IllegalArgumentException: poisoned text");
            });
    assertThat(
            out.stream()
                .filter(r -> r.getString(0).equals("embedding"))
                .map(r -> r.getString(2))
                .distinct()
                .toList())
        .containsExactly("fake@1");
  }

  /** An embedder that fails any window holding a poisoned text, as a broken input would. */
  private record PoisonSpec()
      implements dev.infuse.udfs.model.ModelSpec<dev.infuse.udfs.embed.TextEmbedder> {
    @Override
    public String cacheKey() {
      return "test-poison-embedder";
    }

    @Override
    public dev.infuse.udfs.embed.TextEmbedder load() {
      return new dev.infuse.udfs.embed.TextEmbedder() {
        @Override
        public String modelId() {
          return "fake@1";
        }

        @Override
        public int dimension() {
          return 2;
        }

        @Override
        public float[][] embed(List<String> texts) {
          if (texts.contains("POISON")) {
            throw new IllegalArgumentException("poisoned text");
          }
          return texts.stream().map(t -> new float[] {0.6f, 0.8f}).toArray(float[][]::new);
        }

        @Override
        public void close() {}
      };
    }
  }

  @Test
  void aBadModelPathOrBatchSizeIsAConfigErrorNamingTheOption() {
    String warehouse = SparkTestSession.tempDir("embed-bad").toString();
    CliResult missing =
        SparkTestSession.cli("embed", "--warehouse", warehouse, "--model", "/nope/model");
    assertThat(missing.code()).as(missing.toString()).isEqualTo(2);
    assertThat(missing.err())
        .contains("embed.model: got /nope/model, which is not a directory; expected 'default'");

    CliResult batch =
        SparkTestSession.cli(
            "embed", "--warehouse", warehouse, "--batch-size", "0", "--device", "tpu");
    assertThat(batch.code()).isEqualTo(2);
    assertThat(batch.err())
        .contains("embed.batch_size: got 0, expected 1..4096")
        .contains("embed.device: got tpu, expected auto, cpu, gpu or gpu:N");
  }
}
