package dev.infuse.udfs.lm.rl;

import static org.assertj.core.api.Assertions.assertThat;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.nn.Parameter;
import dev.infuse.udfs.lm.DecoderLm;
import dev.infuse.udfs.lm.ModelDirectory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RlCheckpointsTest {
  @TempDir Path temp;

  private static final PolicyUpdateConfig CONFIG =
      new PolicyUpdateConfig("ppo", 0.002, 1.0, 0.95, 0.2, 0.2, 0.1, 1, 2, 1e-3, 10, true, 1.0, 7);

  private static Map<String, float[]> snapshot(Map<String, Parameter> parameters) {
    Map<String, float[]> out = new LinkedHashMap<>();
    parameters.forEach((name, parameter) -> out.put(name, parameter.getArray().toFloatArray()));
    return out;
  }

  private static Map<String, float[]> snapshot(NDList arrays) {
    Map<String, float[]> out = new LinkedHashMap<>();
    for (NDArray array : arrays) {
      out.put(array.getName(), array.toFloatArray());
    }
    return out;
  }

  @Test
  void restoringTheLatestCheckpointGivesIdenticalWeightsMomentsAndCounters() throws IOException {
    Path root = temp.resolve("rl");
    List<RlSample> samples =
        List.of(
            RlSample.ppo("a", RlFixtures.ids("Q:"), RlFixtures.ids("yes"), 1),
            RlSample.ppo("b", RlFixtures.ids("Q:"), RlFixtures.ids("no"), -1));
    Map<String, float[]> weights;
    Map<String, float[]> head;
    Map<String, float[]> moments;
    try (DecoderLm policy = RlFixtures.model(3);
        DecoderLm reference = RlFixtures.model(3);
        ValueHead valueHead = ValueHead.create(16, Device.cpu(), 3);
        RlAgentState state = RlAgentState.create(policy, valueHead)) {
      for (int iteration = 1; iteration <= 3; iteration++) {
        PolicyUpdater.update(state, reference, samples, CONFIG);
        state.setIteration(iteration);
        RlCheckpoints.write(root, state, CONFIG);
      }
      weights = snapshot(policy.parameters());
      head = snapshot(valueHead.parameters());
      moments = snapshot(state.optimizer().moments());
    }
    // A crash mid-write of iteration 4 leaves no COMPLETE marker; it is skipped.
    Files.createDirectories(RlCheckpoints.directory(root, 4));
    assertThat(RlCheckpoints.directory(root, 1)).doesNotExist();

    try (DecoderLm policy = RlFixtures.model(99);
        ValueHead valueHead = ValueHead.create(16, Device.cpu(), 99);
        RlAgentState state = RlAgentState.create(policy, valueHead)) {
      Optional<RlCheckpoints.Saved> saved = RlCheckpoints.restoreLatest(root, state);

      assertThat(saved).isPresent();
      assertThat(saved.get().iteration()).isEqualTo(3);
      assertThat(saved.get().config()).isEqualTo(CONFIG);
      assertThat(state.iteration()).isEqualTo(3);
      assertThat(state.updates()).isEqualTo(3);
      assertThat(state.optimizer().steps()).isEqualTo(3);
      assertThat(snapshot(policy.parameters())).containsExactlyEntriesOf(weights);
      assertThat(snapshot(valueHead.parameters())).containsExactlyEntriesOf(head);
      assertThat(snapshot(state.optimizer().moments())).containsExactlyEntriesOf(moments);
    }

    Path latest = RlCheckpoints.latest(root).orElseThrow();
    try (DecoderLm loaded = ModelDirectory.loadDecoder(latest, Device.cpu());
        ValueHead valueHead =
            ValueHead.load(latest.resolve(RlCheckpoints.VALUE_HEAD), Device.cpu())) {
      assertThat(snapshot(loaded.parameters())).containsExactlyEntriesOf(weights);
      assertThat(valueHead.hasBias()).isTrue();
      assertThat(snapshot(valueHead.parameters())).containsExactlyEntriesOf(head);
    }
  }

  @Test
  void noCheckpointLeavesTheStateAlone() {
    try (DecoderLm policy = RlFixtures.model(3);
        RlAgentState state = RlAgentState.create(policy, null)) {
      assertThat(RlCheckpoints.restoreLatest(temp.resolve("none"), state)).isEmpty();
      assertThat(state.updates()).isZero();
    }
  }
}
