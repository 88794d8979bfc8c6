package dev.infuse.udfs.lm.train;

import ai.djl.engine.Engine;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.NDScope;
import ai.djl.ndarray.types.Shape;
import ai.djl.training.GradientCollector;
import dev.infuse.udfs.lm.DecoderLm;
import dev.infuse.udfs.lm.GraphConstants;
import dev.infuse.udfs.lm.LmConfig;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Trains a {@link DecoderLm} on packed token sequences with next-token cross-entropy, resuming from
 * the newest complete checkpoint under the checkpoint root. Deterministic on CPU: the data order,
 * learning rate and optimizer state at every step derive from the step number and the checkpoint,
 * so an interrupted and resumed run ends where an uninterrupted one would.
 *
 * <p>DJL's PyTorch engine allows one gradient collector per JVM at a time, so one training runs at
 * a time per JVM.
 */
public final class Trainer {
  private Trainer() {}

  /** As {@link #train(DecoderLm, SequenceSource, TrainingConfig, Path, TrainingListener)}. */
  public static TrainingResult train(
      DecoderLm model,
      List<PackedSequence> data,
      TrainingConfig config,
      Path checkpointRoot,
      TrainingListener listener) {
    return train(
        model, data == null ? null : SequenceSource.of(data), config, checkpointRoot, listener);
  }

  /**
   * Trains {@code model} in place up to {@code config.steps()} steps. Only the rows of the current
   * step are held, so {@code data} may live on disk.
   *
   * @param data the rows to train on, each at most the model's context length
   * @param checkpointRoot where checkpoints go and are resumed from; null for neither
   * @param listener hears every step and checkpoint; null for none
   */
  public static TrainingResult train(
      DecoderLm model,
      SequenceSource data,
      TrainingConfig config,
      Path checkpointRoot,
      TrainingListener listener) {
    List<String> problems = new ArrayList<>(config.problems());
    problems.addAll(dataProblems(data, model.config()));
    if (!problems.isEmpty()) {
      throw new IllegalArgumentException("training: " + String.join("; ", problems));
    }
    TrainingListener hear = listener == null ? metrics -> {} : listener;
    long started = System.nanoTime();
    try (NDManager manager = NDManager.newBaseManager(model.device(), "PyTorch");
        AdamW optimizer = new AdamW(model.parameters(), manager)) {
      int resumedFrom = -1;
      double loss = Double.NaN;
      Optional<Path> latest =
          checkpointRoot == null ? Optional.empty() : Checkpoints.latest(checkpointRoot);
      if (latest.isPresent()) {
        Checkpoints.State state = Checkpoints.restore(latest.get(), model, optimizer, manager);
        resumedFrom = state.step();
        loss = state.loss();
      }
      DataOrder order = new DataOrder(data.size(), config.seed());
      for (int step = Math.max(resumedFrom, 0) + 1; step <= config.steps(); step++) {
        long stepStarted = System.nanoTime();
        List<PackedSequence> rows = new ArrayList<>();
        for (int index : order.batch(step, config.batchSize())) {
          rows.add(data.get(index));
        }
        TrainingBatch batch =
            new TrainingBatch(rows, model.config().padTokenId(), config.maskDocumentBoundaries());
        double learningRate = LearningRateSchedule.at(step, config);
        double gradNorm;
        try (NDScope scope = new NDScope()) {
          loss = backward(model, batch, manager);
          gradNorm = optimizer.step(step, learningRate, config);
        }
        if (!Double.isFinite(loss) || !Double.isFinite(gradNorm)) {
          throw new IllegalStateException(
              "training diverged at step "
                  + step
                  + " (loss "
                  + loss
                  + ", gradient norm "
                  + gradNorm
                  + "); lower learning_rate or set gradient_clip");
        }
        double seconds = (System.nanoTime() - stepStarted) / 1e9;
        hear.onStep(
            new StepMetrics(
                step,
                loss,
                learningRate,
                gradNorm,
                batch.realTokens,
                batch.realTokens / seconds,
                (System.nanoTime() - started) / 1e9));
        boolean due = config.checkpointEvery() > 0 && step % config.checkpointEvery() == 0;
        if (checkpointRoot != null && (due || step == config.steps())) {
          Path dir =
              Checkpoints.write(
                  checkpointRoot, new Checkpoints.State(step, loss, config), model, optimizer);
          hear.onCheckpoint(step, dir);
        }
      }
      // A checkpoint from a longer run is already past steps: report where the model really is.
      return new TrainingResult(Math.max(config.steps(), resumedFrom), loss, resumedFrom);
    }
  }

  /** Runs the forward pass and backpropagates the mean next-token loss; returns the loss. */
  static double backward(DecoderLm model, TrainingBatch batch, NDManager manager) {
    Shape cells = new Shape(batch.rows, batch.length);
    NDArray tokens = manager.create(batch.tokens, cells);
    NDArray positions = manager.create(batch.positions, cells);
    NDArray attention =
        manager.create(batch.attention, new Shape(batch.rows, batch.length, batch.length));
    NDArray targets = manager.create(batch.targets, new Shape(batch.rows, batch.length, 1));
    NDArray weights = manager.create(batch.targetWeights, cells);
    float count = Math.max(1f, (float) weights.sum().getFloat());
    try (GradientCollector collector = Engine.getEngine("PyTorch").newGradientCollector()) {
      NDArray logProbabilities = model.forwardTraining(tokens, positions, attention).logSoftmax(-1);
      NDArray loss =
          GraphConstants.dividedBy(
              logProbabilities.gather(targets, 2).reshape(cells).mul(weights).sum().neg(), count);
      collector.backward(loss);
      return loss.getFloat();
    }
  }

  /** Reads every row once (from disk too), keeping at most five problems. */
  private static List<String> dataProblems(SequenceSource data, LmConfig model) {
    List<String> problems = new ArrayList<>();
    if (data == null || data.isEmpty()) {
      problems.add("data: empty, expected at least one sequence");
      return problems;
    }
    for (int i = 0; i < data.size() && problems.size() < 5; i++) {
      int[] ids = data.get(i).inputIds();
      if (ids.length > model.contextLength()) {
        problems.add(
            "data["
                + i
                + "]: "
                + ids.length
                + " tokens, expected at most context_length "
                + model.contextLength());
      }
      for (int id : ids) {
        if (id < 0 || id >= model.vocabSize()) {
          problems.add(
              "data[" + i + "]: token id " + id + ", expected 0.." + (model.vocabSize() - 1));
          break;
        }
      }
    }
    return problems;
  }
}
