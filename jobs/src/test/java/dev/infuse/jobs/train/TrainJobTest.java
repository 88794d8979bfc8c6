package dev.infuse.jobs.train;

import static org.assertj.core.api.Assertions.assertThat;

import dev.infuse.jobs.QualitySample;
import dev.infuse.jobs.SparkTestSession;
import dev.infuse.jobs.SparkTestSession.CliResult;
import dev.infuse.jobs.io.Warehouse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * train end to end on the QuALITY sample: the model directory, the metrics, resume on rerun,
 * refusal to mix two trainings in one directory, and shards with a bad row.
 */
class TrainJobTest {
  private static final SparkSession SPARK = SparkTestSession.get();
  private static String warehouse;

  /**
   * A tiny model and a short run: the point is the job's plumbing, the trainer has its own tests.
   */
  private static final String[] TINY = {
    "--set",
    "train.layers=1",
    "--set",
    "train.d_model=32",
    "--set",
    "train.heads=2",
    "--set",
    "train.sequence_length=32",
    "--set",
    "train.batch_size=4",
    "--set",
    "train.warmup_steps=2",
    "--set",
    "train.checkpoint_every=4",
    "--set",
    "train.sources=[documents]",
    "--set",
    "train.device=cpu"
  };

  @BeforeAll
  static void chunkTheSample() {
    // The sample ingested and chunked to 256 tokens, shared with the other QuALITY tests of the
    // JVM.
    warehouse = QualitySample.chunkedCopy(256, "train");
  }

  @Test
  void trainsWritesTheModelAndItsMetricsAndResumesOnRerun() throws Exception {
    CliResult first = train("models/a", 8);
    assertThat(first.code()).as(first.toString()).isZero();
    Path model = Path.of(warehouse, "models/a");
    for (String file :
        List.of("model.safetensors", "config.json", "tokenizer.json", "train_info.json")) {
      assertThat(model.resolve(file)).isRegularFile();
    }
    Warehouse w = new Warehouse(SPARK, warehouse);
    List<Row> steps =
        w.read("train_metrics")
            .filter("model_dir LIKE '%models/a'")
            .orderBy("step")
            .collectAsList();
    assertThat(steps).hasSize(8);
    assertThat(steps.get(0).<Integer>getAs("step")).isEqualTo(1);
    assertThat(steps.get(7).<Double>getAs("loss")).isLessThan(steps.get(0).<Double>getAs("loss"));
    assertThat(steps.get(0).<String>getAs("device")).contains("cpu");
    Row run = w.read("runs").filter("job = 'train'").head();
    assertThat(run.<Long>getAs("input_count"))
        .isEqualTo(run.<Long>getAs("output_count") + run.<Long>getAs("quarantined_count"));

    // The same config again resumes from the final checkpoint and trains nothing more.
    CliResult again = train("models/a", 8);
    assertThat(again.code()).as(again.toString()).isZero();
    assertThat(again.out()).contains("resumed from step 8");
    assertThat(w.read("train_metrics").filter("model_dir LIKE '%models/a'").count()).isEqualTo(8);

    // More steps change the schedule: another training, refused in the same directory.
    CliResult other = train("models/a", 12);
    assertThat(other.code()).as(other.toString()).isEqualTo(2);
    assertThat(other.err())
        .contains("train.model_dir")
        .contains("holds checkpoints of another training");

    // The trained model serves a generation job through the djl backend, inside the Spark tasks.
    CliResult qa =
        SparkTestSession.cli(
            "gen-qa",
            "--warehouse",
            warehouse,
            "--set",
            "llm.backend=djl",
            "--set",
            "llm.model=" + model,
            "--set",
            "llm.device=cpu",
            "--set",
            "llm.max_tokens=16",
            "--set",
            "gen_qa.max_units=2");
    assertThat(qa.code()).as(qa.toString()).isZero();
    List<Row> calls = w.read("llm_calls").filter("backend = 'djl'").collectAsList();
    assertThat(calls)
        .hasSize(2)
        .allSatisfy(call -> assertThat(call.<String>getAs("status")).isEqualTo("succeeded"));
  }

  @Test
  void shardsTrainAndABadRowIsQuarantinedWithItsReason() throws Exception {
    Path shards = SparkTestSession.tempDir("shards").resolve("parquet");
    StructType schema =
        new StructType()
            .add("input_ids", DataTypes.createArrayType(DataTypes.IntegerType))
            .add("document_lengths", DataTypes.createArrayType(DataTypes.IntegerType));
    int[] good = java.util.stream.IntStream.range(0, 32).map(i -> 1000 + i % 7).toArray();
    int[] outOfVocab = java.util.stream.IntStream.range(0, 32).map(i -> 999_999).toArray();
    SPARK
        .createDataFrame(
            List.of(
                RowFactory.create(good, new int[] {16, 16}),
                RowFactory.create(good, new int[] {32}),
                RowFactory.create(outOfVocab, new int[] {32}),
                RowFactory.create(java.util.Arrays.copyOf(good, 10), new int[] {10})),
            schema)
        .coalesce(1)
        .write()
        .parquet(shards.toString());

    CliResult result =
        SparkTestSession.cli(
            concat(
                new String[] {
                  "train",
                  "--warehouse",
                  warehouse,
                  "--model-dir",
                  "models/shards",
                  "--steps",
                  "3",
                  "--shards",
                  shards.toString()
                },
                TINY));
    assertThat(result.code()).as(result.toString()).isZero();
    Warehouse w = new Warehouse(SPARK, warehouse);
    List<String> reasons =
        w.read("quarantine")
            .filter("job = 'train'")
            .select("reason")
            .as(org.apache.spark.sql.Encoders.STRING())
            .collectAsList();
    assertThat(reasons).hasSize(2);
    assertThat(reasons)
        .anySatisfy(r -> assertThat(r).contains("holds 999999, expected ids in 0..30521"));
    assertThat(reasons)
        .anySatisfy(
            r -> assertThat(r).contains("has 10 tokens, expected train.sequence_length 32"));
    assertThat(Files.readString(Path.of(warehouse, "models/shards/train_info.json")))
        .contains("\"sequences\" : 2");
  }

  private static CliResult train(String modelDir, int steps) {
    return SparkTestSession.cli(
        concat(
            new String[] {
              "train",
              "--warehouse",
              warehouse,
              "--model-dir",
              modelDir,
              "--steps",
              String.valueOf(steps)
            },
            TINY));
  }

  private static String[] concat(String[] a, String[] b) {
    String[] all = java.util.Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, all, a.length, b.length);
    return all;
  }
}
