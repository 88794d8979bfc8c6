package dev.infuse.jobs.cli;

import dev.infuse.jobs.JobRun;
import dev.infuse.jobs.RunCounts;
import dev.infuse.jobs.config.ConfigLoader;
import dev.infuse.jobs.train.TrainJob;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(
    name = "train",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Train a causal LM (DJL, PyTorch engine) on warehouse text or packed token shards.",
      "Runs in this JVM, on its GPU if it has one; checkpoints every N steps and resumes on rerun.",
      "Writes the model directory (model.safetensors, config.json, tokenizer.json) and train_metrics."
    })
public final class TrainCommand extends JobCommand {
  @Option(
      names = "--model-dir",
      paramLabel = "DIR",
      description = "Where the model goes (train.model_dir).")
  String modelDir;

  @Option(names = "--steps", paramLabel = "N", description = "Optimiser steps (train.steps).")
  Integer steps;

  @Option(
      names = "--device",
      paramLabel = "auto|cpu|gpu|gpu:N",
      description = "Where to train (train.device).")
  String device;

  @Option(
      names = "--shards",
      paramLabel = "DIR",
      description = "Parquet token shards instead of tables (train.shards).")
  String shards;

  @Option(
      names = "--corpus",
      paramLabel = "NAME",
      description = "Train only on this corpus (train.corpus).")
  String corpus;

  @Override
  protected String jobName() {
    return TrainJob.NAME;
  }

  @Override
  protected void applyFlags(ConfigLoader loader) {
    if (modelDir != null) {
      loader.setString("train.model_dir", modelDir);
    }
    if (steps != null) {
      loader.set("train.steps=" + steps);
    }
    if (device != null) {
      loader.setString("train.device", device);
    }
    if (shards != null) {
      loader.setString("train.shards", shards);
    }
    if (corpus != null) {
      loader.setString("train.corpus", corpus);
    }
  }

  @Override
  protected RunCounts execute(JobRun run) {
    return new TrainJob(run).run();
  }
}
