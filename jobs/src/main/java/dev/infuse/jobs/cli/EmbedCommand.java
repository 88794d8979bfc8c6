package dev.infuse.jobs.cli;

import dev.infuse.jobs.embed.EmbedJob;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(
    name = "embed",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    header = "Embed chunks with a sentence encoder into chunk_embeddings.",
    description = {
      "Unit vectors. Only new or changed chunks are embedded; a rerun commits nothing."
    })
public final class EmbedCommand extends JobCommand {
  @Option(
      names = "--model",
      paramLabel = "default|DIR",
      description =
          "'default' (all-MiniLM-L6-v2, in the jar) or a directory with model.onnx or model.pt"
              + " and tokenizer.json.")
  @ConfigKey("embed.model")
  String model;

  @Option(
      names = "--device",
      paramLabel = "auto|cpu|gpu|gpu:N",
      description = "Where to run the model.")
  @ConfigKey("embed.device")
  String device;

  @Option(names = "--batch-size", paramLabel = "N", description = "Texts per forward pass.")
  @ConfigKey("embed.batch_size")
  Integer batchSize;

  @Option(
      names = "--threads",
      paramLabel = "N",
      description = "ONNX Runtime threads per forward pass.")
  @ConfigKey("embed.threads")
  Integer threads;

  public EmbedCommand() {
    super(EmbedJob.NAME, run -> new EmbedJob(run).run());
  }
}
