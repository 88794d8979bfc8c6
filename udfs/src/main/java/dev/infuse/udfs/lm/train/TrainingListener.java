package dev.infuse.udfs.lm.train;

import java.nio.file.Path;

/** Hears about training progress. An exception thrown here stops training where it is. */
public interface TrainingListener {
  /** After every optimizer step. */
  void onStep(StepMetrics metrics);

  /** After a checkpoint is complete on disk. */
  default void onCheckpoint(int step, Path directory) {}
}
