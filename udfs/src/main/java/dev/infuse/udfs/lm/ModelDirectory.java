package dev.infuse.udfs.lm;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * A model on disk: {@code config.json} ({@link LmConfig}, snake_case), {@code model.safetensors}
 * (float32 tensors named by parameter path) and {@code tokenizer.json} (the exact bytes the model
 * was created with). Saving is atomic, so a crash never leaves half a model where a reader looks.
 */
public final class ModelDirectory {
  public static final String CONFIG = "config.json";
  public static final String WEIGHTS = "model.safetensors";
  public static final String TOKENIZER = "tokenizer.json";

  private ModelDirectory() {}

  /** Writes {@code model} to {@code dir} atomically, replacing whatever model was there. */
  public static void save(DecoderLm model, Path dir) {
    AtomicDirectory.write(dir, temp -> writeFiles(model, temp));
  }

  /**
   * Writes the three model files into an existing directory, not atomically: for callers, such as
   * checkpoints, that make the enclosing directory atomic themselves.
   */
  public static void writeFiles(DecoderLm model, Path dir) throws IOException {
    LmJson.MAPPER.writeValue(dir.resolve(CONFIG).toFile(), model.config());
    Files.write(dir.resolve(TOKENIZER), model.tokenizerJson());
    NDList weights = new NDList();
    model.parameters().values().forEach(parameter -> weights.add(parameter.getArray()));
    Files.write(dir.resolve(WEIGHTS), weights.encode(NDList.Encoding.SAFETENSORS));
  }

  /** The config.json of {@code dir}, checked. */
  public static LmConfig readConfig(Path dir) {
    Path file = dir.resolve(CONFIG);
    LmConfig config;
    try {
      config = LmJson.MAPPER.readValue(requireFile(file).toFile(), LmConfig.class);
    } catch (IOException e) {
      throw new IllegalArgumentException(
          file.toAbsolutePath() + ": not a valid model config: " + e.getMessage(), e);
    }
    List<String> problems = config.problems();
    if (!problems.isEmpty()) {
      throw new IllegalArgumentException(
          file.toAbsolutePath() + ": " + String.join("; ", problems));
    }
    return config;
  }

  /** Loads whichever model {@code dir} holds, by its config's architecture. */
  public static CausalLm load(Path dir, Device device) {
    LmConfig config = readConfig(dir);
    if (LmConfig.TORCHSCRIPT.equals(config.architecture())) {
      return TorchScriptLm.load(dir, device);
    }
    return loadDecoder(dir, device);
  }

  /** Loads an {@code infuse-decoder} model, for example to train it further. */
  public static DecoderLm loadDecoder(Path dir, Device device) {
    LmConfig config = readConfig(dir);
    byte[] tokenizerJson;
    byte[] weights;
    try {
      tokenizerJson = Files.readAllBytes(requireFile(dir.resolve(TOKENIZER)));
      weights = Files.readAllBytes(requireFile(dir.resolve(WEIGHTS)));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the model in " + dir.toAbsolutePath(), e);
    }
    DecoderLm model = DecoderLm.create(config, tokenizerJson, device, 0);
    try (NDManager manager = NDManager.newBaseManager(Device.cpu(), "PyTorch")) {
      model.loadWeights(NDList.decode(manager, weights));
      return model;
    } catch (RuntimeException e) {
      model.close();
      throw new IllegalArgumentException(
          dir.resolve(WEIGHTS).toAbsolutePath() + ": " + e.getMessage(), e);
    }
  }

  /** The named tensors of a safetensors file, attached to {@code manager}. */
  public static NDList readTensors(Path file, NDManager manager) throws IOException {
    NDList tensors = NDList.decode(manager, Files.readAllBytes(requireFile(file)));
    for (NDArray tensor : tensors) {
      if (tensor.getName() == null) {
        throw new IllegalArgumentException(file.toAbsolutePath() + ": a tensor has no name");
      }
    }
    return tensors;
  }

  private static Path requireFile(Path file) {
    if (!Files.isRegularFile(file)) {
      throw new IllegalArgumentException(
          "model directory: no file "
              + file.toAbsolutePath()
              + ", expected "
              + CONFIG
              + ", "
              + WEIGHTS
              + " and "
              + TOKENIZER
              + " (see ModelDirectory)");
    }
    return file;
  }
}
