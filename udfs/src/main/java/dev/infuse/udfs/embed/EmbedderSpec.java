package dev.infuse.udfs.embed;

import dev.infuse.udfs.model.Devices;
import dev.infuse.udfs.model.ModelSpec;
import java.util.ArrayList;
import java.util.List;

/**
 * What a Spark closure carries instead of an embedder. Executors turn it into one shared {@link
 * TextEmbedder} per JVM through {@code ExecutorModels.get(spec)}.
 *
 * @param model {@code default} (all-MiniLM-L6-v2 from the jar) or a local directory with model.onnx
 *     or model.pt beside tokenizer.json, present on every executor
 * @param device {@code auto}, {@code cpu}, {@code gpu} or {@code gpu:N}
 * @param batchSize texts per forward pass
 * @param threads ONNX Runtime intra-op threads per call
 * @param longText {@code window} or {@code warn} ({@link LongTextMode}): what happens to a text
 *     longer than the encoder's window
 */
public record EmbedderSpec(String model, String device, int batchSize, int threads, String longText)
    implements ModelSpec<TextEmbedder> {
  private static final long serialVersionUID = 1L;

  /**
   * The MiniLM default on the device {@code auto}, batches of 32, one thread, long texts windowed.
   */
  public static EmbedderSpec defaults() {
    return new EmbedderSpec(EmbeddingModelFiles.DEFAULT, "auto", 32, 1, LongTextMode.DEFAULT);
  }

  /**
   * The id stored beside this spec's vectors ({@code chunk_embeddings.model}): the model files' id,
   * marked with the long-text mode ({@link LongTextMode#modelId}). Reads the model file's hash for
   * a local model.
   *
   * @throws IllegalArgumentException if the model or the mode is not valid
   */
  public String vectorsModelId() {
    return LongTextMode.of(longText).modelId(EmbeddingModelFiles.modelId(model));
  }

  /**
   * Every problem with these values, each naming the option and the expected value; empty when
   * valid.
   */
  public List<String> problems() {
    List<String> problems = new ArrayList<>();
    if (model == null || model.isBlank()) {
      problems.add("model: got nothing, expected 'default' or a local model directory");
    }
    if (Devices.problem(device) != null) {
      problems.add("device: got " + device + ", expected " + Devices.FORMS + " (N >= 0)");
    }
    if (batchSize < 1 || batchSize > 4096) {
      problems.add("batch_size: got " + batchSize + ", expected 1..4096");
    }
    if (threads < 1) {
      problems.add("threads: got " + threads + ", expected an integer >= 1");
    }
    try {
      LongTextMode.of(longText);
    } catch (IllegalArgumentException e) {
      problems.add(e.getMessage());
    }
    return problems;
  }

  @Override
  public String cacheKey() {
    return "embedder:"
        + model.trim()
        + "|"
        + device
        + "|batch="
        + batchSize
        + "|threads="
        + threads
        + "|long_text="
        + longText;
  }

  @Override
  public TextEmbedder load() {
    List<String> problems = problems();
    if (!problems.isEmpty()) {
      throw new IllegalArgumentException("embedder spec: " + String.join("; ", problems));
    }
    EmbeddingModelFiles files = EmbeddingModelFiles.resolve(model);
    return DjlSentenceEmbedder.load(
        files,
        Devices.resolve(device, files.engine()),
        batchSize,
        threads,
        LongTextMode.of(longText));
  }
}
