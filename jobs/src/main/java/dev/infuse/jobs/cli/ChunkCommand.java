package dev.infuse.jobs.cli;

import dev.infuse.jobs.JobRun;
import dev.infuse.jobs.RunCounts;
import dev.infuse.jobs.chunk.ChunkJob;
import dev.infuse.jobs.config.ConfigLoader;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(
    name = "chunk",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Cut documents into token-bounded chunks, preferring paragraph and sentence ends.",
      "Offsets map back into documents.text exactly; re-chunking replaces a document's chunks."
    })
public final class ChunkCommand extends JobCommand {
  @Option(
      names = "--max-tokens",
      paramLabel = "N",
      description = "Chunk size in tokens (chunk.max_tokens, default 1024).")
  Integer maxTokens;

  @Option(
      names = "--overlap-tokens",
      paramLabel = "N",
      description = "Overlap in tokens (chunk.overlap_tokens, default 0).")
  Integer overlapTokens;

  @Option(
      names = "--tokenizer",
      paramLabel = "default|PATH",
      description =
          "'default' (all-MiniLM-L6-v2, in the jar) or a HuggingFace tokenizer.json (chunk.tokenizer).")
  String tokenizer;

  @Option(
      names = "--corpus",
      paramLabel = "NAME",
      description = "Chunk only this corpus (chunk.corpus).")
  String corpus;

  @Override
  protected String jobName() {
    return ChunkJob.NAME;
  }

  @Override
  protected void applyFlags(ConfigLoader loader) {
    if (maxTokens != null) {
      loader.set("chunk.max_tokens=" + maxTokens);
    }
    if (overlapTokens != null) {
      loader.set("chunk.overlap_tokens=" + overlapTokens);
    }
    if (tokenizer != null) {
      loader.setString("chunk.tokenizer", tokenizer);
    }
    if (corpus != null) {
      loader.setString("chunk.corpus", corpus);
    }
  }

  @Override
  protected RunCounts execute(JobRun run) {
    return new ChunkJob(run).run();
  }
}
