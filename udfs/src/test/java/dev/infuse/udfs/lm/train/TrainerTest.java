package dev.infuse.udfs.lm.train;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import ai.djl.ndarray.NDManager;
import dev.infuse.udfs.lm.DecoderLm;
import dev.infuse.udfs.lm.DirectMemoryRecycler;
import dev.infuse.udfs.lm.TinyLms;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TrainerTest {
  @TempDir Path temp;

  private static TrainingConfig config(int steps, int checkpointEvery) {
    return new TrainingConfig(
        steps, 4, 1e-2, 1e-3, 3, 0.1, 0.9, 0.95, 1e-8, 1.0, 11, checkpointEvery, true);
  }

  @Test
  void lossFallsWellBelowItsStartOnASmallCorpus() {
    List<StepMetrics> steps = new ArrayList<>();
    try (DecoderLm model = TinyLms.create(5)) {
      TrainingResult result =
          Trainer.train(model, TinyCorpus.rows(model.tokenizer()), config(40, 0), null, steps::add);

      assertThat(result.finalStep()).isEqualTo(40);
      assertThat(result.resumedFromStep()).isEqualTo(-1);
      assertThat(steps).hasSize(40);
      double first = steps.get(0).loss();
      assertThat(first).isCloseTo(Math.log(30522), within(1.0));
      assertThat(result.finalLoss()).isLessThan(0.5 * first);
      assertThat(steps.get(2).learningRate()).isCloseTo(1e-2, within(1e-12));
      assertThat(steps.get(39).learningRate()).isCloseTo(1e-3, within(1e-12));
      assertThat(steps.get(0).tokens()).isPositive();
      assertThat(steps.get(0).gradNorm()).isPositive();
    }
  }

  @Test
  void resumingAfterAnInterruptionEndsWhereAnUninterruptedRunDoes() throws IOException {
    TrainingConfig config = config(12, 4);
    Path straightRoot = temp.resolve("straight");
    Path interruptedRoot = temp.resolve("interrupted");
    long[] probe = {1996, 4937, 2938};
    float[] straightLogits;
    TrainingResult straight;
    try (DecoderLm model = TinyLms.create(5);
        NDManager manager = NDManager.newBaseManager("PyTorch")) {
      straight =
          Trainer.train(model, TinyCorpus.rows(model.tokenizer()), config, straightRoot, null);
      straightLogits = logits(model, manager, probe);
    }

    List<Integer> checkpoints = new ArrayList<>();
    try (DecoderLm model = TinyLms.create(5)) {
      TrainingListener crashAtStep7 =
          new TrainingListener() {
            @Override
            public void onStep(StepMetrics metrics) {
              if (metrics.step() == 7) {
                throw new IllegalStateException("simulated crash");
              }
            }

            @Override
            public void onCheckpoint(int step, Path dir) {
              checkpoints.add(step);
            }
          };
      assertThatThrownBy(
              () ->
                  Trainer.train(
                      model,
                      TinyCorpus.rows(model.tokenizer()),
                      config,
                      interruptedRoot,
                      crashAtStep7))
          .hasMessage("simulated crash");
    }
    assertThat(checkpoints).containsExactly(4);

    List<Integer> resumedSteps = new ArrayList<>();
    try (DecoderLm model = TinyLms.create(99);
        NDManager manager = NDManager.newBaseManager("PyTorch")) {
      TrainingResult resumed =
          Trainer.train(
              model,
              TinyCorpus.rows(model.tokenizer()),
              config,
              interruptedRoot,
              metrics -> resumedSteps.add(metrics.step()));

      assertThat(resumed.resumedFromStep()).isEqualTo(4);
      assertThat(resumed.finalStep()).isEqualTo(12);
      assertThat(resumedSteps).containsExactly(5, 6, 7, 8, 9, 10, 11, 12);
      assertThat(resumed.finalLoss()).isCloseTo(straight.finalLoss(), within(1e-5));
      float[] resumedLogits = logits(model, manager, probe);
      for (int i = 0; i < resumedLogits.length; i++) {
        assertThat(resumedLogits[i]).isCloseTo(straightLogits[i], within(1e-4f));
      }
    }
    try (Stream<Path> dirs = Files.list(interruptedRoot)) {
      assertThat(dirs.map(dir -> dir.getFileName().toString()))
          .containsExactlyInAnyOrder("step-00000008", "step-00000012");
    }
    assertThat(interruptedRoot.resolve("step-00000012").resolve(Checkpoints.COMPLETE))
        .isRegularFile();

    // A finished run resumes to nothing and says so.
    try (DecoderLm model = TinyLms.create(5)) {
      TrainingResult again =
          Trainer.train(model, TinyCorpus.rows(model.tokenizer()), config, interruptedRoot, null);
      assertThat(again.resumedFromStep()).isEqualTo(12);
      assertThat(again.finalStep()).isEqualTo(12);
    }
  }

  @Test
  void rowsStagedOnDiskTrainExactlyAsTheSameRowsInMemory() {
    // Three epochs of the 8 rows (batches of 4), so each epoch's order is exercised too.
    TrainingConfig config = config(6, 0);
    List<Double> inMemory = new ArrayList<>();
    try (DecoderLm model = TinyLms.create(5)) {
      Trainer.train(
          model,
          SequenceSource.of(TinyCorpus.rows(model.tokenizer())),
          config,
          null,
          metrics -> inMemory.add(metrics.loss()));
    }
    List<Double> onDisk = new ArrayList<>();
    try (DecoderLm model = TinyLms.create(5)) {
      MappedSequences.Writer writer = MappedSequences.writer(temp, 64);
      TinyCorpus.rows(model.tokenizer()).forEach(writer::append);
      try (MappedSequences staged = writer.finish()) {
        Trainer.train(model, staged, config, null, metrics -> onDisk.add(metrics.loss()));
      }
    }
    assertThat(onDisk).hasSize(6).isEqualTo(inMemory);
  }

  /**
   * A busy driver (netty, Spark) allocates and frees direct buffers all the time. Constants in the
   * recorded graph once lived in such buffers and were freed before backward read them: training
   * then diverged at a random step ({@link dev.infuse.udfs.lm.GraphConstants}). Every step must
   * match a quiet run's while another thread recycles direct memory throughout.
   */
  @Test
  void directMemoryRecycledDuringTrainingChangesNoStep() throws InterruptedException {
    TrainingConfig config = config(30, 0);
    List<StepMetrics> quiet = new ArrayList<>();
    try (DecoderLm model = TinyLms.create(5)) {
      Trainer.train(model, TinyCorpus.rows(model.tokenizer()), config, null, quiet::add);
    }

    List<StepMetrics> busy = new ArrayList<>();
    try (DirectMemoryRecycler recycler = DirectMemoryRecycler.start();
        DecoderLm model = TinyLms.create(5)) {
      Trainer.train(model, TinyCorpus.rows(model.tokenizer()), config, null, busy::add);
    }

    assertThat(busy).hasSize(quiet.size());
    for (int i = 0; i < quiet.size(); i++) {
      assertThat(busy.get(i).loss()).as("loss at step " + (i + 1)).isEqualTo(quiet.get(i).loss());
      assertThat(busy.get(i).gradNorm())
          .as("gradient norm at step " + (i + 1))
          .isEqualTo(quiet.get(i).gradNorm());
    }
  }

  @Test
  void badConfigAndDataAreReportedByName() {
    TrainingConfig bad = new TrainingConfig(0, -1, 0, 1, 5, -0.1, 1.0, 0.95, 0, -1, 1, -2, true);
    assertThat(bad.problems())
        .containsExactly(
            "steps: got 0, expected a positive integer",
            "batch_size: got -1, expected a positive integer",
            "learning_rate: got 0.0, expected a positive number",
            "min_learning_rate: got 1.0, expected 0..learning_rate (0.0)",
            "weight_decay: got -0.1, expected a number >= 0",
            "beta1: got 1.0, expected a number in [0, 1)",
            "epsilon: got 0.0, expected a positive number",
            "gradient_clip: got -1.0, expected a number >= 0 (0 turns clipping off)",
            "checkpoint_every: got -2, expected >= 0 (0 checkpoints only at the end)");
    assertThat(TrainingConfig.defaults(300, 8, 3e-3, 1, 100).problems()).isEmpty();
    assertThat(new TrainingConfig(4, 1, 1e-3, 0, 4, 0, 0.9, 0.95, 1e-8, 1, 1, 0, true).problems())
        .containsExactly("warmup_steps: got 4, expected 0..3 (below steps)");

    try (DecoderLm model = TinyLms.create(5)) {
      List<PackedSequence> tooLong = List.of(PackedSequence.of(new int[33]));
      assertThatThrownBy(() -> Trainer.train(model, tooLong, config(2, 0), null, null))
          .hasMessageContaining("data[0]: 33 tokens, expected at most context_length 32");
      assertThatThrownBy(
              () ->
                  Trainer.train(
                      model, List.of(PackedSequence.of(5, 40000)), config(2, 0), null, null))
          .hasMessageContaining("data[0]: token id 40000, expected 0..30521");
      assertThatThrownBy(() -> Trainer.train(model, List.of(), bad, null, null))
          .hasMessageContaining("steps: got 0")
          .hasMessageContaining("data: empty");
    }
    assertThatThrownBy(() -> new PackedSequence(new int[] {1, 2, 3}, new int[] {1, 1}, null))
        .hasMessage("document_lengths: sum to 2, expected the 3 tokens of input_ids");
    assertThatThrownBy(() -> new PackedSequence(new int[] {1, 2}, new int[] {2}, new int[] {1, 2}))
        .hasMessage("loss_mask: got 2, expected 0 or 1");
  }

  private static float[] logits(DecoderLm model, NDManager manager, long[] tokens) {
    long[] positions = java.util.stream.LongStream.range(0, tokens.length).toArray();
    long[] keyMask = java.util.stream.LongStream.generate(() -> 1).limit(tokens.length).toArray();
    return model
        .forward(
            manager.create(new long[][] {tokens}),
            manager.create(new long[][] {positions}),
            manager.create(new long[][] {keyMask}),
            null)
        .toFloatArray();
  }
}
