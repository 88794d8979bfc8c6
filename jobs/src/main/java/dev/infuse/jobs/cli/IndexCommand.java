package dev.infuse.jobs.cli;

import dev.infuse.jobs.retrieve.IndexJob;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(
    name = "index",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    header = "Build the BM25 index and the chunks' embeddings.",
    description = {
      "BM25 shards over chunks go under <warehouse>/_indexes/bm25; the chunks' embeddings "
          + "for embed.model go to chunk_embeddings. Rebuilt only when chunks changed."
    })
public final class IndexCommand extends JobCommand {
  @Option(
      names = "--chunks-per-shard",
      paramLabel = "N",
      description = "A corpus of n chunks gets ceil(n / N) BM25 shards.")
  @ConfigKey("index.chunks_per_shard")
  Integer chunksPerShard;

  @Option(
      names = "--dense",
      negatable = true,
      description =
          "Also bring chunk_embeddings up to date; --no-dense builds BM25 only and leaves them as"
              + " they are.")
  @ConfigKey("index.dense")
  Boolean dense;

  @Option(names = "--model", paramLabel = "default|DIR", description = "The embedding model.")
  @ConfigKey("embed.model")
  String model;

  @Option(names = "--device", paramLabel = "auto|cpu|gpu|gpu:N", description = "Where to embed.")
  @ConfigKey("embed.device")
  String device;

  public IndexCommand() {
    super(IndexJob.NAME, run -> new IndexJob(run).run());
  }
}
