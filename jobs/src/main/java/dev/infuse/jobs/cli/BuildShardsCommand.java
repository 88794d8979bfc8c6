package dev.infuse.jobs.cli;

import dev.infuse.jobs.shards.BuildShardsJob;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(
    name = "build-shards",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    header = "Mix, dedup, decontaminate and pack text into training shards.",
    description = {
      "Mixes synthetic QA, synthetic documents, documents and replay text by a mixture "
          + "file. Exact and near-duplicate removal, benchmark decontamination, tokenization and "
          + "packing, then Parquet, JSONL and Megatron (.bin/.idx) shards with info.json, "
          + "stats.json, COMPLETED and shard_manifest rows."
    })
public final class BuildShardsCommand extends JobCommand {
  @Option(
      names = "--mixture",
      paramLabel = "FILE",
      description = "The mixture, conf/mixtures/*.yaml.")
  @ConfigKey("shards.mixture")
  String mixture;

  @Option(
      names = "--output",
      paramLabel = "DIR|URI",
      description = "Where the shards go; default shards/<mixture name> under the warehouse.")
  @ConfigKey("shards.output")
  String output;

  @Option(
      names = "--formats",
      paramLabel = "F",
      split = ",",
      description = "parquet, jsonl and/or megatron, comma-separated.")
  @ConfigKey("shards.formats")
  List<String> formats;

  @Option(
      names = "--seed",
      paramLabel = "N",
      description = "Sampling seed, over the mixture's; default the mixture's.")
  @ConfigKey("shards.seed")
  Long seed;

  @Option(
      names = "--total-tokens",
      paramLabel = "N",
      description =
          "Training tokens to draw, over the mixture's total_tokens (0: every token once);"
              + " default the mixture's.")
  @ConfigKey("shards.total_tokens")
  Long totalTokens;

  @Option(names = "--sequence-length", paramLabel = "N", description = "Tokens per sequence.")
  @ConfigKey("shards.sequence_length")
  Integer sequenceLength;

  public BuildShardsCommand() {
    super(BuildShardsJob.NAME, run -> new BuildShardsJob(run).run());
  }
}
