package dev.infuse.tests;

import static org.assertj.core.api.Assertions.assertThat;

import ai.djl.Device;
import ai.djl.engine.Engine;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Parameter;
import ai.djl.training.GradientCollector;
import ai.djl.training.loss.Loss;
import ai.djl.training.optimizer.Optimizer;
import ai.djl.training.tracker.Tracker;
import dev.infuse.jobs.SparkTestSession;
import dev.infuse.jobs.SparkTestSession.CliResult;
import dev.infuse.jobs.io.Warehouse;
import dev.infuse.udfs.bench.BenchResult;
import dev.infuse.udfs.bench.BenchResults;
import dev.infuse.udfs.lm.DecoderLm;
import dev.infuse.udfs.lm.LmConfig;
import dev.infuse.udfs.lm.train.PackedSequence;
import dev.infuse.udfs.pack.TokenPacker;
import dev.infuse.udfs.pack.TokenizedText;
import dev.infuse.udfs.text.TextTokenizer;
import dev.infuse.udfs.text.Tokenizers;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Training tokens per second of the {@code train} job against a minimal DJL training loop over the
 * same model, shapes and data in the same JVM: the job's cost of checkpoints, metrics, its own
 * AdamW and seeded data order. Prints, and records the per-step ratio (goal ≥ 0.95) and the ratio
 * with checkpoints and metrics (goal ≥ 0.85); never gates. Run {@code bin/infuse bench --only
 * TrainingThroughputBenchmarkTest}.
 */
@Tag("benchmark")
class TrainingThroughputBenchmarkTest {
  private static final int STEPS = Integer.getInteger("bench.steps", 120);
  private static final int WARMUP = 10;
  private static final int LAYERS = 2;
  private static final int WIDTH = 64;
  private static final int HEADS = 4;
  private static final int LENGTH = 64;
  private static final int BATCH = 4;
  private final SparkSession spark = SparkTestSession.get();

  @Test
  void trainJobAgainstAMinimalDjlLoop() {
    String warehouse = SparkTestSession.tempDir("train-bench").toString();
    assertThat(
            SparkTestSession.cli(
                    "ingest",
                    "--format",
                    "quality",
                    "--input",
                    SparkTestSession.repoRoot()
                        .resolve("samples/quality/quality_dev_sample.jsonl")
                        .toString(),
                    "--warehouse",
                    warehouse)
                .code())
        .isZero();
    List<PackedSequence> data = packedDocuments(new Warehouse(spark, warehouse));

    double minimalBefore = minimalDjlLoop(data);
    long started = System.nanoTime();
    CliResult job =
        SparkTestSession.cli(
            "train",
            "--warehouse",
            warehouse,
            "--model-dir",
            "models/bench",
            "--steps",
            String.valueOf(STEPS),
            "--device",
            "cpu",
            "--set",
            "train.sources=[documents]",
            "--set",
            "train.layers=" + LAYERS,
            "--set",
            "train.d_model=" + WIDTH,
            "--set",
            "train.heads=" + HEADS,
            "--set",
            "train.sequence_length=" + LENGTH,
            "--set",
            "train.batch_size=" + BATCH,
            "--set",
            "train.checkpoint_every=50",
            "--set",
            "train.mask_document_boundaries=false");
    double jobWall = (System.nanoTime() - started) / 1e9;
    assertThat(job.code()).as(job.toString()).isZero();
    double minimalAfter = minimalDjlLoop(data);

    List<Row> steps =
        new Warehouse(spark, warehouse).read("train_metrics").orderBy("step").collectAsList();
    double jobPerStep =
        median(
            steps.stream()
                .skip(WARMUP)
                .mapToDouble(r -> r.<Double>getAs("tokens_per_second"))
                .toArray());
    double trainingSeconds =
        steps.get(steps.size() - 1).<Double>getAs("wall_seconds")
            - steps.get(WARMUP - 1).<Double>getAs("wall_seconds");
    double jobOverall = (double) (STEPS - WARMUP) * BATCH * LENGTH / trainingSeconds;
    double minimal = Math.max(minimalBefore, minimalAfter);
    System.out.printf(
        Locale.ROOT,
        "training throughput, d_model %d, %d layers, seq %d, batch %d, %d steps, %d threads:%n",
        WIDTH,
        LAYERS,
        LENGTH,
        BATCH,
        STEPS,
        Integer.getInteger("ai.djl.pytorch.num_threads", 0));
    System.out.printf(
        Locale.ROOT,
        "  minimal DJL loop (DJL Optimizer.adamW, softmax CE loss): %.0f and %.0f tokens/s%n",
        minimalBefore,
        minimalAfter);
    System.out.printf(
        Locale.ROOT,
        "  train job, per step (median):           %.0f tokens/s  ratio %.2f%n",
        jobPerStep,
        jobPerStep / minimal);
    System.out.printf(
        Locale.ROOT,
        "  train job, steps %d-%d incl. checkpoints and metrics: %.0f tokens/s  ratio %.2f%n",
        WARMUP + 1,
        STEPS,
        jobOverall,
        jobOverall / minimal);
    System.out.printf(
        Locale.ROOT, "  train job, whole run incl. Spark tokenization: %.1f s%n", jobWall);
    String setup =
        String.format(
            Locale.ROOT,
            "d_model %d, %d layers, seq %d, batch %d, %d steps (first %d not counted), minimal loop"
                + " best of before and after (%.0f, %.0f)",
            WIDTH,
            LAYERS,
            LENGTH,
            BATCH,
            STEPS,
            WARMUP,
            minimalBefore,
            minimalAfter);
    String reference = String.format(Locale.ROOT, "minimal DJL loop %,.0f tokens/s", minimal);
    BenchResults.record(
        new BenchResult(
            "train, per step",
            String.format(Locale.ROOT, "%,.0f tokens/s", jobPerStep),
            reference,
            jobPerStep / minimal,
            "ratio",
            true,
            0.95,
            "median step; " + setup));
    BenchResults.record(
        new BenchResult(
            "train, with checkpoints and metrics",
            String.format(Locale.ROOT, "%,.0f tokens/s", jobOverall),
            reference,
            jobOverall / minimal,
            "ratio",
            true,
            0.85,
            "steps after warm-up, wall time; " + setup));
  }

  /**
   * The documents packed as the job packs them (no document masking, to match the minimal loop).
   */
  private static List<PackedSequence> packedDocuments(Warehouse warehouse) {
    TextTokenizer tokenizer = Tokenizers.defaultTokenizer();
    List<TokenizedText> texts = new ArrayList<>();
    for (Row row :
        warehouse.read("documents").orderBy("doc_id").select("doc_id", "text").collectAsList()) {
      texts.add(
          new TokenizedText("documents", row.getString(0), tokenizer.ids(row.getString(1)), null));
    }
    return new TokenPacker(LENGTH, 102, 0).pack(texts);
  }

  /**
   * The textbook DJL loop: gradient collector, forward, loss, backward, DJL's own AdamW update per
   * parameter. Same model class and init, same batches in order, causal attention only.
   */
  private static double minimalDjlLoop(List<PackedSequence> data) {
    LmConfig config =
        new LmConfig(LmConfig.INFUSE_DECODER, 30522, LAYERS, WIDTH, HEADS, 128, 4, 102, 0);
    Optimizer optimizer =
        Optimizer.adamW()
            .optLearningRateTracker(Tracker.fixed(3e-3f))
            .optWeightDecays(0.1f)
            .build();
    Loss loss = Loss.softmaxCrossEntropyLoss();
    boolean[] causal = new boolean[BATCH * LENGTH * LENGTH];
    for (int b = 0; b < BATCH; b++) {
      for (int q = 0; q < LENGTH; q++) {
        for (int k = 0; k <= q; k++) {
          causal[(b * LENGTH + q) * LENGTH + k] = true;
        }
      }
    }
    long[] positions = new long[BATCH * LENGTH];
    for (int i = 0; i < positions.length; i++) {
      positions[i] = i % LENGTH;
    }
    double[] rates = new double[STEPS];
    try (DecoderLm model =
        DecoderLm.create(config, Tokenizers.defaultTokenizerJson(), Device.cpu(), 0)) {
      Map<String, Parameter> parameters = model.parameters();
      for (int step = 0; step < STEPS; step++) {
        long started = System.nanoTime();
        long[] tokens = new long[BATCH * LENGTH];
        long[] labels = new long[BATCH * (LENGTH - 1)];
        for (int b = 0; b < BATCH; b++) {
          int[] ids = data.get((step * BATCH + b) % data.size()).inputIds();
          for (int t = 0; t < LENGTH; t++) {
            tokens[b * LENGTH + t] = ids[t];
            if (t > 0) {
              labels[b * (LENGTH - 1) + t - 1] = ids[t];
            }
          }
        }
        try (NDManager manager = NDManager.newBaseManager(Device.cpu(), "PyTorch")) {
          Shape cells = new Shape(BATCH, LENGTH);
          try (GradientCollector collector = Engine.getEngine("PyTorch").newGradientCollector()) {
            NDArray logits =
                model.forwardTraining(
                    manager.create(tokens, cells),
                    manager.create(positions, cells),
                    manager.create(causal, new Shape(BATCH, LENGTH, LENGTH)));
            NDArray predicted =
                logits.get(":, :-1, :").reshape(BATCH * (LENGTH - 1), config.vocabSize());
            NDArray value =
                loss.evaluate(new NDList(manager.create(labels)), new NDList(predicted));
            collector.backward(value);
          }
          for (Map.Entry<String, Parameter> entry : parameters.entrySet()) {
            NDArray weight = entry.getValue().getArray();
            optimizer.update(entry.getKey(), weight, weight.getGradient());
          }
        }
        rates[step] = BATCH * LENGTH / ((System.nanoTime() - started) / 1e9);
      }
    }
    return median(Arrays.copyOfRange(rates, WARMUP, STEPS));
  }

  private static double median(double[] values) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    return sorted[sorted.length / 2];
  }
}
