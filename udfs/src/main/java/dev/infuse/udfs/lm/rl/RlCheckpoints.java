package dev.infuse.udfs.lm.rl;

import ai.djl.Device;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import dev.infuse.udfs.lm.AtomicDirectory;
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
 * RL checkpoints under one root, one per iteration: {@code iter-XXXXXXXX/} holds a full model
 * directory of the policy (loadable by {@link ModelDirectory} as a normal model, so any backend can
 * generate from it), {@value #VALUE_HEAD} (PPO), {@value #OPTIMIZER} (AdamW moments), {@value
 * #STATE} (iteration, update and optimizer-step counters, the update config) and a {@value
 * #COMPLETE} marker. Each is written atomically ({@link AtomicDirectory}); the newest {@value
 * #KEEP} are kept. After a kill, {@link #restoreLatest} resumes from the newest complete one.
 */
public final class RlCheckpoints {
  public static final String COMPLETE = "COMPLETE";
  public static final String VALUE_HEAD = "value_head.safetensors";
  public static final String OPTIMIZER = "optimizer.safetensors";
  public static final String STATE = "rl_state.json";
  public static final int KEEP = 2;
  private static final Pattern NAME = Pattern.compile("iter-(\\d{8})");

  /**
   * The counters and config saved beside the weights.
   *
   * @param iteration the agent's iteration when saved
   * @param updates updates done (the next update's index)
   * @param optimizerSteps AdamW steps taken (for its bias corrections)
   * @param config the update config in force
   */
  public record Saved(int iteration, int updates, int optimizerSteps, PolicyUpdateConfig config) {}

  private RlCheckpoints() {}

  /** The directory of iteration {@code iteration} under {@code root}. */
  public static Path directory(Path root, int iteration) {
    return root.resolve(String.format(Locale.ROOT, "iter-%08d", iteration));
  }

  /**
   * Writes {@code state} as iteration {@code state.iteration()}, replacing one of that number, then
   * drops all but the newest {@value #KEEP}; returns its directory.
   */
  public static Path write(Path root, RlAgentState state, PolicyUpdateConfig config) {
    Path target = directory(root, state.iteration());
    Saved saved = new Saved(state.iteration(), state.updates(), state.optimizer().steps(), config);
    AtomicDirectory.write(
        target,
        dir -> {
          ModelDirectory.writeFiles(state.policy(), dir);
          if (state.valueHead() != null) {
            state.valueHead().save(dir.resolve(VALUE_HEAD));
          }
          Files.write(
              dir.resolve(OPTIMIZER),
              state.optimizer().moments().encode(NDList.Encoding.SAFETENSORS));
          LmJson.MAPPER.writeValue(dir.resolve(STATE).toFile(), saved);
          Files.writeString(dir.resolve(COMPLETE), "iteration " + state.iteration() + "\n");
        });
    prune(root);
    return target;
  }

  /** The newest complete checkpoint under {@code root}, if any. */
  public static Optional<Path> latest(Path root) {
    List<Path> complete = complete(root);
    return complete.isEmpty() ? Optional.empty() : Optional.of(complete.get(complete.size() - 1));
  }

  /**
   * Loads the newest complete checkpoint under {@code root} into {@code state} (policy weights,
   * value head, moments, counters); empty, with {@code state} untouched, when there is none.
   */
  public static Optional<Saved> restoreLatest(Path root, RlAgentState state) {
    Optional<Path> latest = latest(root);
    return latest.map(dir -> restore(dir, state));
  }

  /** Loads the checkpoint in {@code dir} into {@code state}. */
  public static Saved restore(Path dir, RlAgentState state) {
    try {
      Saved saved = LmJson.MAPPER.readValue(dir.resolve(STATE).toFile(), Saved.class);
      try (NDManager scratch = NDManager.newBaseManager(Device.cpu(), "PyTorch")) {
        state
            .policy()
            .loadWeights(ModelDirectory.readTensors(dir.resolve(ModelDirectory.WEIGHTS), scratch));
        if (state.valueHead() != null) {
          state
              .valueHead()
              .loadWeights(ModelDirectory.readTensors(dir.resolve(VALUE_HEAD), scratch));
        }
        state.optimizer().loadMoments(ModelDirectory.readTensors(dir.resolve(OPTIMIZER), scratch));
      }
      state.optimizer().setSteps(saved.optimizerSteps());
      state.setUpdates(saved.updates());
      state.setIteration(saved.iteration());
      return saved;
    } catch (IOException | RuntimeException e) {
      throw new IllegalStateException(
          "rl checkpoint "
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
          "cannot delete an old rl checkpoint under " + root.toAbsolutePath(), e);
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
      throw new UncheckedIOException("cannot list rl checkpoints in " + root.toAbsolutePath(), e);
    }
  }
}
