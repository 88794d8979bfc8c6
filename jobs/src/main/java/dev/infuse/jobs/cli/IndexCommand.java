package dev.infuse.jobs.cli;

import dev.infuse.jobs.JobRun;
import dev.infuse.jobs.RunCounts;
import dev.infuse.jobs.config.ConfigLoader;
import dev.infuse.jobs.retrieve.IndexJob;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(
    name = "index",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Build the retrieval index: Lucene BM25 shards over chunks (under <warehouse>/_indexes/bm25),",
      "and the chunks' embeddings for embed.model in chunk_embeddings. Rebuilt only when chunks changed."
    })
public final class IndexCommand extends JobCommand {
  @Option(
      names = "--chunks-per-shard",
      paramLabel = "N",
      description =
          "A corpus of n chunks gets ceil(n / N) BM25 shards (index.chunks_per_shard, default 20000).")
  Integer chunksPerShard;

  @Option(
      names = "--no-dense",
      description = "Build BM25 only; leave chunk_embeddings as it is (index.dense=false).")
  boolean noDense;

  @Option(
      names = "--model",
      paramLabel = "default|DIR",
      description = "The embedding model (embed.model).")
  String model;

  @Option(
      names = "--device",
      paramLabel = "auto|cpu|gpu|gpu:N",
      description = "Where to embed (embed.device).")
  String device;

  @Override
  protected String jobName() {
    return IndexJob.NAME;
  }

  @Override
  protected void applyFlags(ConfigLoader loader) {
    if (chunksPerShard != null) {
      loader.set("index.chunks_per_shard=" + chunksPerShard);
    }
    if (noDense) {
      loader.set("index.dense=false");
    }
    if (model != null) {
      loader.setString("embed.model", model);
    }
    if (device != null) {
      loader.setString("embed.device", device);
    }
  }

  @Override
  protected RunCounts execute(JobRun run) {
    return new IndexJob(run).run();
  }
}
