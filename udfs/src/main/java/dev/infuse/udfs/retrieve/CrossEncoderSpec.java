package dev.infuse.udfs.retrieve;

import dev.infuse.udfs.model.Devices;
import dev.infuse.udfs.model.ModelSpec;
import java.util.ArrayList;
import java.util.List;

/**
 * What a Spark closure carries instead of a reranker. Executors turn it into one shared {@link
 * CrossEncoder} per JVM through {@code ExecutorModels.get(spec)}. ONNX Runtime runs one intra-op
 * thread per call: each Spark task has its own core.
 *
 * @param model a local cross-encoder directory ({@link CrossEncoderFiles}), present on every
 *     executor
 * @param device {@code auto}, {@code cpu}, {@code gpu} or {@code gpu:N}
 * @param batchSize (query, passage) pairs per forward pass
 * @param maxTokens the longest pair fed to the model; 0 for the model's own length
 */
public record CrossEncoderSpec(String model, String device, int batchSize, int maxTokens)
    implements ModelSpec<CrossEncoder> {
  private static final long serialVersionUID = 1L;

  /** Every problem with these values, each naming the option and the expected value. */
  public List<String> problems() {
    List<String> problems = new ArrayList<>();
    if (model == null || model.isBlank()) {
      problems.add("rerank: got nothing, expected a local cross-encoder directory");
    }
    if (Devices.problem(device) != null) {
      problems.add("rerank_device: got " + device + ", expected " + Devices.FORMS + " (N >= 0)");
    }
    if (batchSize < 1 || batchSize > 4096) {
      problems.add("rerank_batch_size: got " + batchSize + ", expected 1..4096");
    }
    if (maxTokens != 0 && maxTokens < 3) {
      problems.add(
          "rerank_max_length: got " + maxTokens + ", expected 0 (the model's own) or >= 3");
    }
    return problems;
  }

  @Override
  public String cacheKey() {
    return "cross-encoder:"
        + model.trim()
        + "|"
        + device
        + "|batch="
        + batchSize
        + "|max="
        + maxTokens;
  }

  @Override
  public CrossEncoder load() {
    List<String> problems = problems();
    if (!problems.isEmpty()) {
      throw new IllegalArgumentException("cross-encoder spec: " + String.join("; ", problems));
    }
    CrossEncoderFiles files = CrossEncoderFiles.resolve(model, maxTokens);
    return CrossEncoder.load(files, Devices.resolve(device, files.engine()), batchSize, 1);
  }
}
