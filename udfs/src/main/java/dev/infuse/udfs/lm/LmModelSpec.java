package dev.infuse.udfs.lm;

import dev.infuse.udfs.model.Devices;
import dev.infuse.udfs.model.ModelSpec;
import java.nio.file.Path;
import java.util.Locale;

/**
 * What a Spark closure carries to use a causal LM: the model directory and the {@code device}
 * option ({@value Devices#FORMS}). Loaded once per executor through {@code ExecutorModels}.
 *
 * @param modelDir a directory written by {@link ModelDirectory}, as every executor sees it
 * @param device where to run it; resolved on the executor, so {@code auto} finds that executor's
 *     GPU
 */
public record LmModelSpec(String modelDir, String device) implements ModelSpec<CausalLm> {
  private static final long serialVersionUID = 1L;

  public LmModelSpec {
    if (modelDir == null || modelDir.isBlank()) {
      throw new IllegalArgumentException("model_dir: empty, expected a model directory");
    }
    String problem = Devices.problem(device);
    if (problem != null) {
      throw new IllegalArgumentException(problem);
    }
  }

  @Override
  public String cacheKey() {
    return "causal-lm:"
        + Path.of(modelDir).toAbsolutePath().normalize()
        + "@"
        + device.trim().toLowerCase(Locale.ROOT);
  }

  @Override
  public CausalLm load() {
    return ModelDirectory.load(Path.of(modelDir), Devices.resolve(device, "PyTorch"));
  }
}
