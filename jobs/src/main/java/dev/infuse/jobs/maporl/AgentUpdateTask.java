package dev.infuse.jobs.maporl;

import ai.djl.Device;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.infuse.udfs.lm.DecoderLm;
import dev.infuse.udfs.lm.ModelDirectory;
import dev.infuse.udfs.lm.rl.PolicyUpdateConfig;
import dev.infuse.udfs.lm.rl.PolicyUpdater;
import dev.infuse.udfs.lm.rl.RlAgentState;
import dev.infuse.udfs.lm.rl.RlCheckpoints;
import dev.infuse.udfs.lm.rl.RlSample;
import dev.infuse.udfs.lm.rl.UpdateStats;
import dev.infuse.udfs.lm.rl.ValueHead;
import dev.infuse.udfs.model.Devices;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.apache.spark.api.java.function.Function2;
import scala.Tuple2;

/**
 * One agent's policy update, as its own Spark task: partition i of the samples holds agent i's
 * responses, so the agents' updates run in parallel, each on its executor's device (its GPU where
 * it has one). The task loads the agent's policy (its latest checkpoint, else its starting model),
 * the frozen reference (the starting model), runs one PPO or GRPO update, and writes the
 * iteration's checkpoint: a full model directory the next discussion serves through the djl
 * backend.
 *
 * <p>Resumable: the update's statistics are written before the checkpoint, and a task that finds
 * the iteration's checkpoint complete returns the statistics it recorded without updating again.
 */
final class AgentUpdateTask
    implements Function2<
        Integer, Iterator<Tuple2<Integer, AgentUpdateTask.Sample>>, Iterator<String>> {
  private static final long serialVersionUID = 1L;
  private static final ObjectMapper JSON = new ObjectMapper();

  /** One response to learn from, as texts; tokenized in the task with the policy's tokenizer. */
  record Sample(String id, String prompt, String response, double reward, Double advantage)
      implements java.io.Serializable {}

  /** What the task reports, as JSON (one line per agent). */
  record Result(
      String agentId,
      boolean trained,
      boolean resumed,
      int samples,
      String checkpoint,
      double seconds,
      UpdateStats stats) {}

  private final List<String> agentIds;
  private final List<String> startDirs;
  private final List<String> roots;
  private final List<Boolean> trained;
  private final int iteration;
  private final PolicyUpdateConfig config;

  AgentUpdateTask(
      List<String> agentIds,
      List<String> startDirs,
      List<String> roots,
      List<Boolean> trained,
      int iteration,
      PolicyUpdateConfig config) {
    this.agentIds = List.copyOf(agentIds);
    this.startDirs = List.copyOf(startDirs);
    this.roots = List.copyOf(roots);
    this.trained = List.copyOf(trained);
    this.iteration = iteration;
    this.config = config;
  }

  static Path statsFile(Path root, int iteration) {
    return root.resolve(String.format(Locale.ROOT, "stats-%08d.json", iteration));
  }

  @Override
  public Iterator<String> call(Integer agent, Iterator<Tuple2<Integer, Sample>> rows)
      throws IOException {
    long started = System.nanoTime();
    List<Sample> samples = new ArrayList<>();
    rows.forEachRemaining(row -> samples.add(row._2()));
    String agentId = agentIds.get(agent);
    if (!trained.get(agent)) {
      return List.of(
              JSON.writeValueAsString(
                  new Result(agentId, false, false, samples.size(), startDirs.get(agent), 0, null)))
          .iterator();
    }
    Path root = Path.of(roots.get(agent));
    Path target = RlCheckpoints.directory(root, iteration);
    Path stats = statsFile(root, iteration);
    if (Files.isRegularFile(target.resolve(RlCheckpoints.COMPLETE)) && Files.isRegularFile(stats)) {
      Result earlier = JSON.readValue(stats.toFile(), Result.class);
      return List.of(
              JSON.writeValueAsString(
                  new Result(
                      earlier.agentId(),
                      true,
                      true,
                      earlier.samples(),
                      earlier.checkpoint(),
                      earlier.seconds(),
                      earlier.stats())))
          .iterator();
    }
    if (samples.isEmpty()) {
      throw new IllegalStateException(
          "maporl: agent " + agentId + " has no rewarded responses at iteration " + iteration);
    }
    Device device = Devices.resolve("auto", "PyTorch");
    Path start = Path.of(startDirs.get(agent));
    ValueHead head = null;
    try (DecoderLm reference = ModelDirectory.loadDecoder(start, device);
        DecoderLm policy = ModelDirectory.loadDecoder(start, device)) {
      head =
          config.usesValueHead()
              ? ValueHead.create(policy.config().dModel(), device, config.seed())
              : null;
      try (RlAgentState state = RlAgentState.create(policy, head)) {
        Optional<RlCheckpoints.Saved> saved = RlCheckpoints.restoreLatest(root, state);
        int from = saved.map(RlCheckpoints.Saved::iteration).orElse(0);
        if (from != iteration - 1) {
          throw new IllegalStateException(
              "maporl: agent "
                  + agentId
                  + "'s latest checkpoint under "
                  + root
                  + " is iteration "
                  + from
                  + ", expected "
                  + (iteration - 1)
                  + " before iteration "
                  + iteration
                  + "; delete the later checkpoints or use another maporl.output");
        }
        int context = policy.config().contextLength();
        List<RlSample> batch = new ArrayList<>();
        for (Sample sample : samples) {
          int[][] ids =
              RlTexts.fit(
                  RlTexts.ids(policy.tokenizer(), sample.prompt()),
                  RlTexts.ids(policy.tokenizer(), sample.response()),
                  context);
          if (ids[1].length == 0) {
            continue;
          }
          batch.add(
              config.usesValueHead()
                  ? RlSample.ppo(sample.id(), ids[0], ids[1], sample.reward())
                  : new RlSample(sample.id(), ids[0], ids[1], sample.reward(), sample.advantage()));
        }
        UpdateStats update;
        // DJL's PyTorch engine allows one gradient collector per JVM: agents whose tasks share an
        // executor JVM (local mode, or executors with several task slots) take turns; on a cluster
        // with one task slot per executor (one GPU each) they train at the same time.
        synchronized (AgentUpdateTask.class) {
          update = PolicyUpdater.update(state, reference, batch, config);
        }
        state.setIteration(iteration);
        Result result =
            new Result(
                agentId,
                true,
                false,
                batch.size(),
                target.toString(),
                (System.nanoTime() - started) / 1e9,
                update);
        writeAtomically(stats, JSON.writeValueAsString(result));
        RlCheckpoints.write(root, state, config);
        return List.of(JSON.writeValueAsString(result)).iterator();
      }
    } finally {
      if (head != null) {
        head.close();
      }
    }
  }

  private static void writeAtomically(Path file, String text) {
    try {
      Files.createDirectories(file.getParent());
      Path temp = file.resolveSibling("." + file.getFileName() + ".tmp");
      Files.writeString(temp, text);
      Files.move(temp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      throw new UncheckedIOException("maporl: cannot write " + file, e);
    }
  }
}
