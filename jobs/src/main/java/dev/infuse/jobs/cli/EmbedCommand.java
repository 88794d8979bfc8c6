package dev.infuse.jobs.cli;

import dev.infuse.jobs.JobRun;
import dev.infuse.jobs.RunCounts;
import dev.infuse.jobs.config.ConfigLoader;
import dev.infuse.jobs.embed.EmbedJob;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(
    name = "embed",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Embed every chunk with a sentence encoder into chunk_embeddings (unit vectors).",
      "Only new or changed chunks are embedded; a rerun commits nothing."
    })
public final class EmbedCommand extends JobCommand {
  @Option(
      names = "--model",
      paramLabel = "default|DIR",
      description =
          "'default' (all-MiniLM-L6-v2, in the jar) or a directory with model.onnx or model.pt and"
              + " tokenizer.json (embed.model).")
  String model;

  @Option(
      names = "--device",
      paramLabel = "auto|cpu|gpu|gpu:N",
      description = "Where to run the model (embed.device).")
  String device;

  @Option(
      names = "--batch-size",
      paramLabel = "N",
      description = "Texts per forward pass (embed.batch_size, default 32).")
  Integer batchSize;

  @Option(
      names = "--threads",
      paramLabel = "N",
      description = "ONNX Runtime threads per forward pass (embed.threads, default 1).")
  Integer threads;

  @Override
  protected String jobName() {
    return EmbedJob.NAME;
  }

  @Override
  protected void applyFlags(ConfigLoader loader) {
    if (model != null) {
      loader.setString("embed.model", model);
    }
    if (device != null) {
      loader.setString("embed.device", device);
    }
    if (batchSize != null) {
      loader.set("embed.batch_size=" + batchSize);
    }
    if (threads != null) {
      loader.set("embed.threads=" + threads);
    }
  }

  @Override
  protected RunCounts execute(JobRun run) {
    return new EmbedJob(run).run();
  }
}
