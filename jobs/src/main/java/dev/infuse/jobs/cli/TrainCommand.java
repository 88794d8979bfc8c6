package dev.infuse.jobs.cli;

import dev.infuse.jobs.train.TrainJob;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(
    name = "train",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    header = "Train a causal LM (DJL) on warehouse text or token shards.",
    description = {
      "Runs in this JVM, on its GPU if it has one; checkpoints every N steps and resumes on "
          + "rerun. Writes the model directory (model.safetensors, config.json, tokenizer.json) "
          + "and train_metrics."
    })
public final class TrainCommand extends JobCommand {
  @Option(names = "--model-dir", paramLabel = "DIR", description = "Where the model goes.")
  @ConfigKey("train.model_dir")
  String modelDir;

  @Option(names = "--steps", paramLabel = "N", description = "Optimiser steps.")
  @ConfigKey("train.steps")
  Integer steps;

  @Option(names = "--device", paramLabel = "auto|cpu|gpu|gpu:N", description = "Where to train.")
  @ConfigKey("train.device")
  String device;

  @Option(
      names = "--shards",
      paramLabel = "DIR",
      description = "Parquet token shards instead of tables.")
  @ConfigKey("train.shards")
  String shards;

  @Option(names = "--corpus", paramLabel = "NAME", description = "Train only on this corpus.")
  @ConfigKey("train.corpus")
  String corpus;

  public TrainCommand() {
    super(TrainJob.NAME, run -> new TrainJob(run).run());
  }
}
