package dev.infuse.udfs.lm.train;

import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import dev.infuse.udfs.lm.AtomicDirectory;
import dev.infuse.udfs.lm.DecoderLm;
import dev.infuse.udfs.lm.LmJson;
import dev.infuse.udfs.lm.ModelDirectory;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Training checkpoints under one root: {@code step-XXXXXXXX/} holds a full model directory (so any
 * checkpoint can be loaded as a model), the optimizer moments, the trainer state, and a {@code
 * COMPLETE} marker. Each is written atomically; only the newest {@link #KEEP} are kept.
 */
public final class Checkpoints {
  static final String COMPLETE = "COMPLETE";
  static final String OPTIMIZER = "optimizer.safetensors";
  static final String STATE = "trainer_state.json";
  static final int KEEP = 2;
  private static final Pattern NAME = Pattern.compile("step-(\\d{8})");

  /** What besides weights and moments a resume needs. */
  record State(int step, double loss, TrainingConfig trainingConfig) {}

  private Checkpoints() {}

  static Path directory(Path root, int step) {
    return root.resolve(String.format(Locale.ROOT, "step-%08d", step));
  }

  /**
   * Writes step {@code step}, then drops all but the newest {@link #KEEP}; returns its directory.
   */
  static Path write(Path root, State state, DecoderLm model, AdamW optimizer) {
    Path target = directory(root, state.step());
    AtomicDirectory.write(
        target,
        dir -> {
          ModelDirectory.writeFiles(model, dir);
          Files.write(
              dir.resolve(OPTIMIZER), optimizer.moments().encode(NDList.Encoding.SAFETENSORS));
          LmJson.MAPPER.writeValue(dir.resolve(STATE).toFile(), state);
          Files.writeString(dir.resolve(COMPLETE), "step " + state.step() + "\n");
        });
    prune(root);
    return target;
  }

  /** The newest complete checkpoint under {@code root}, if any. */
  public static Optional<Path> latest(Path root) {
    List<Path> complete = complete(root);
    return complete.isEmpty() ? Optional.empty() : Optional.of(complete.get(complete.size() - 1));
  }

  /** Restores weights and moments from {@code dir} and returns its state. */
  static State restore(Path dir, DecoderLm model, AdamW optimizer, NDManager manager) {
    try {
      State state = LmJson.MAPPER.readValue(dir.resolve(STATE).toFile(), State.class);
      try (NDManager scratch = manager.newSubManager()) {
        model.loadWeights(ModelDirectory.readTensors(dir.resolve(ModelDirectory.WEIGHTS), scratch));
        optimizer.loadMoments(ModelDirectory.readTensors(dir.resolve(OPTIMIZER), scratch));
      }
      return state;
    } catch (IOException | RuntimeException e) {
      throw new IllegalStateException(
          "checkpoint "
              + dir.toAbsolutePath()
              + " cannot be resumed: "
              + e.getMessage()
              + "; delete it to start from the one before",
          e);
    }
  }

  private static void prune(Path root) {
    List<Path> complete = complete(root);
    try {
      for (Path old : complete.subList(0, Math.max(0, complete.size() - KEEP))) {
        AtomicDirectory.deleteRecursively(old);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot delete an old checkpoint under " + root.toAbsolutePath(), e);
    }
  }

  /** Complete checkpoints, oldest first. */
  private static List<Path> complete(Path root) {
    if (!Files.isDirectory(root)) {
      return List.of();
    }
    try (Stream<Path> children = Files.list(root)) {
      return children
          .filter(dir -> NAME.matcher(dir.getFileName().toString()).matches())
          .filter(dir -> Files.isRegularFile(dir.resolve(COMPLETE)))
          .sorted()
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list checkpoints in " + root.toAbsolutePath(), e);
    }
  }
}
