package dev.infuse.jobs.cli;

import dev.infuse.jobs.JobRun;
import dev.infuse.jobs.RunCounts;
import dev.infuse.jobs.config.ConfigLoader;
import dev.infuse.jobs.shards.BuildShardsJob;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(
    name = "build-shards",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Mix synthetic QA, synthetic documents, documents and replay text into training shards.",
      "Exact and near-duplicate removal, benchmark decontamination, tokenization and packing, then Parquet,",
      "JSONL and Megatron (.bin/.idx) shards with info.json, stats.json, COMPLETED and shard_manifest rows."
    })
public final class BuildShardsCommand extends JobCommand {
  @Option(
      names = "--mixture",
      paramLabel = "FILE",
      description = "The mixture, conf/mixtures/*.yaml (shards.mixture).")
  String mixture;

  @Option(
      names = "--output",
      paramLabel = "DIR|URI",
      description = "Where the shards go (shards.output).")
  String output;

  @Option(
      names = "--formats",
      paramLabel = "F",
      split = ",",
      description = "parquet, jsonl and/or megatron, comma-separated (shards.formats).")
  java.util.List<String> formats;

  @Option(
      names = "--seed",
      paramLabel = "N",
      description = "Sampling seed, over the mixture's (shards.seed).")
  Long seed;

  @Option(
      names = "--total-tokens",
      paramLabel = "N",
      description =
          "Training tokens to draw, over the mixture's total_tokens (shards.total_tokens; 0: every token once).")
  Long totalTokens;

  @Option(
      names = "--sequence-length",
      paramLabel = "N",
      description = "Tokens per sequence (shards.sequence_length).")
  Integer sequenceLength;

  @Override
  protected String jobName() {
    return BuildShardsJob.NAME;
  }

  @Override
  protected void applyFlags(ConfigLoader loader) {
    if (mixture != null) {
      loader.setString("shards.mixture", mixture);
    }
    if (output != null) {
      loader.setString("shards.output", output);
    }
    if (formats != null) {
      loader.set("shards.formats=[" + String.join(",", formats) + "]");
    }
    if (seed != null) {
      loader.set("shards.seed=" + seed);
    }
    if (totalTokens != null) {
      loader.set("shards.total_tokens=" + totalTokens);
    }
    if (sequenceLength != null) {
      loader.set("shards.sequence_length=" + sequenceLength);
    }
  }

  @Override
  protected RunCounts execute(JobRun run) {
    return new BuildShardsJob(run).run();
  }
}
