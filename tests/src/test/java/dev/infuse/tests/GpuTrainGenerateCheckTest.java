package dev.infuse.tests;

import static org.assertj.core.api.Assertions.assertThat;

import ai.djl.Device;
import ai.djl.engine.Engine;
import ai.djl.engine.StandardCapabilities;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import dev.infuse.jobs.SparkTestSession;
import dev.infuse.jobs.SparkTestSession.CliResult;
import dev.infuse.jobs.io.Warehouse;
import dev.infuse.udfs.llm.ChatMessage;
import dev.infuse.udfs.llm.ChatRequest;
import dev.infuse.udfs.llm.ChatResponse;
import dev.infuse.udfs.llm.GenerationParams;
import dev.infuse.udfs.llm.LlmBackend;
import dev.infuse.udfs.llm.LlmClient;
import dev.infuse.udfs.llm.LlmClients;
import dev.infuse.udfs.llm.LlmSettings;
import dev.infuse.udfs.lm.CausalLm;
import dev.infuse.udfs.lm.ModelDirectory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The device check, for a machine with an NVIDIA GPU and a CUDA build of libtorch 2.7.1 (see {@code
 * tests/gpu/run.sh} and docs/DJL.md): the same {@code train} job and {@code djl} backend as on CPU,
 * with {@code --device gpu}, printing tokens per second on the GPU and on the CPU for the same
 * model, and requiring the model's GPU and CPU logits to agree within {@value #LOGIT_TOLERANCE}.
 * Fails where the PyTorch engine sees no usable GPU; never part of the normal build.
 */
@Tag("gpu")
class GpuTrainGenerateCheckTest {
  private static final int GPU_STEPS = Integer.getInteger("gpu.steps", 200);
  private static final int CPU_STEPS = Integer.getInteger("gpu.cpu_steps", 20);
  private static final String[] MODEL = {
    "--set",
    "train.layers=4",
    "--set",
    "train.d_model=256",
    "--set",
    "train.heads=8",
    "--set",
    "train.context_length=256",
    "--set",
    "train.sequence_length=128",
    "--set",
    "train.batch_size=32",
    "--set",
    "train.checkpoint_every=100",
    "--set",
    "train.sources=[documents]"
  };
  private static final double LOGIT_TOLERANCE = 1e-3;
  private final SparkSession spark = SparkTestSession.get();

  @Test
  void trainAndGenerateOnCuda() {
    Engine engine = Engine.getEngine("PyTorch");
    // A device check that skips where there is no device would pass on any machine: it fails.
    assertThat(engine.getGpuCount() > 0 && engine.hasCapability(StandardCapabilities.CUDA))
        .as(
            "a GPU usable by the PyTorch engine (%d GPUs, CUDA build: %s); see tests/gpu/run.sh",
            engine.getGpuCount(), engine.hasCapability(StandardCapabilities.CUDA))
        .isTrue();
    String warehouse = SparkTestSession.tempDir("gpu").toString();
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

    double gpuTrain = train(warehouse, "gpu", GPU_STEPS);
    double cpuTrain = train(warehouse, "cpu", CPU_STEPS);
    Path model = Path.of(warehouse, "models", "gpu");
    double logitDifference = maxLogitDifference(model);
    double gpuGenerate = generate(model, "gpu");
    double cpuGenerate = generate(model, "cpu");
    System.out.printf(
        Locale.ROOT,
        "device check on %s, libtorch %s%n",
        engine.defaultDevice(),
        engine.getVersion());
    System.out.printf(
        Locale.ROOT,
        "  train (d_model 256, 4 layers, seq 128, batch 32): gpu %.0f tokens/s (%d steps),"
            + " cpu %.0f tokens/s (%d steps), ratio %.1f%n",
        gpuTrain,
        GPU_STEPS,
        cpuTrain,
        CPU_STEPS,
        gpuTrain / cpuTrain);
    System.out.printf(
        Locale.ROOT,
        "  generate (djl backend, 32 requests x 64 tokens, greedy): gpu %.0f tokens/s,"
            + " cpu %.0f tokens/s, ratio %.1f%n",
        gpuGenerate,
        cpuGenerate,
        gpuGenerate / cpuGenerate);
    System.out.printf(
        Locale.ROOT,
        "  logits of the GPU-trained model, GPU vs CPU: max |difference| %.2e%n",
        logitDifference);
    assertThat(logitDifference).as("max |GPU - CPU| logit").isLessThan(LOGIT_TOLERANCE);
  }

  /**
   * The largest absolute difference between the logits of one model loaded on the GPU and on the
   * CPU, over every position and vocabulary entry of one 64-token input. float32 on both (PyTorch
   * leaves TF32 off for matmuls), so differences come from summation order alone.
   */
  private static double maxLogitDifference(Path model) {
    long[] ids = new long[64];
    long[] positions = new long[ids.length];
    boolean[] keys = new boolean[ids.length];
    for (int i = 0; i < ids.length; i++) {
      ids[i] = 1000 + 37L * i % 20000;
      positions[i] = i;
      keys[i] = true;
    }
    float[] gpu = logits(model, Device.gpu(), ids, positions, keys);
    float[] cpu = logits(model, Device.cpu(), ids, positions, keys);
    assertThat(gpu).hasSameSizeAs(cpu);
    double max = 0;
    for (int i = 0; i < cpu.length; i++) {
      assertThat(Float.isFinite(gpu[i])).as("GPU logit %d is finite", i).isTrue();
      max = Math.max(max, Math.abs(gpu[i] - cpu[i]));
    }
    return max;
  }

  private static float[] logits(
      Path model, Device device, long[] ids, long[] positions, boolean[] keys) {
    CausalLm lm = ModelDirectory.load(model, device);
    try (NDManager manager = NDManager.newBaseManager(device)) {
      Shape shape = new Shape(1, ids.length);
      return lm.forward(
              manager.create(ids, shape),
              manager.create(positions, shape),
              manager.create(keys, shape),
              null)
          .toType(DataType.FLOAT32, false)
          .toFloatArray();
    } finally {
      lm.close();
    }
  }

  /**
   * Runs the train job on {@code device}; the median tokens/s of its steps after the first five.
   */
  private double train(String warehouse, String device, int steps) {
    List<String> args =
        new ArrayList<>(
            List.of(
                "train",
                "--warehouse",
                warehouse,
                "--model-dir",
                "models/" + device,
                "--steps",
                String.valueOf(steps),
                "--device",
                device));
    args.addAll(Arrays.asList(MODEL));
    CliResult result = SparkTestSession.cli(args.toArray(String[]::new));
    assertThat(result.code()).as(result.toString()).isZero();
    List<Row> rows =
        new Warehouse(spark, warehouse)
            .read("train_metrics")
            .filter("model_dir LIKE '%models/" + device + "'")
            .orderBy("step")
            .collectAsList();
    assertThat(rows.get(0).<String>getAs("device")).startsWith(device);
    double[] rates =
        rows.stream()
            .skip(5)
            .mapToDouble(r -> r.<Double>getAs("tokens_per_second"))
            .sorted()
            .toArray();
    return rates[rates.length / 2];
  }

  /** Completion tokens per second of 32 concurrent greedy requests through the djl backend. */
  private static double generate(Path model, String device) {
    LlmClient client =
        LlmClients.forSettings(
            new LlmSettings(
                LlmBackend.DJL, null, model.toString(), null, 32, 300, 600, 1, 100, 1000, device));
    List<ChatRequest> requests = new ArrayList<>();
    for (int i = 0; i < 32; i++) {
      requests.add(
          new ChatRequest(
              model.toString(),
              List.of(new ChatMessage("user", "Tell me about thing " + i + ".")),
              new GenerationParams(64, 0, 1, 1, List.of(), (long) i, false, null),
              null));
    }
    client.complete(requests.get(0)).join(); // load and warm up
    long started = System.nanoTime();
    List<CompletableFuture<ChatResponse>> futures =
        requests.stream().map(client::complete).toList();
    long tokens = futures.stream().mapToLong(f -> f.join().completionTokens()).sum();
    return tokens / ((System.nanoTime() - started) / 1e9);
  }
}
