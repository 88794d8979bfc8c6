package dev.infuse.jobs.retrieve;

import dev.infuse.jobs.config.ConfigSection;
import java.util.List;

/**
 * The {@code index} section: Lucene BM25 shards over {@code chunks}, and the chunks' embeddings for
 * {@code embed.model}.
 *
 * @param chunksPerShard a corpus with n chunks gets ceil(n / chunks_per_shard) shards; a document's
 *     chunks always share one shard
 * @param dense also bring {@code chunk_embeddings} up to date for {@code embed.model} (what {@code
 *     embed} does)
 */
public record IndexConfig(int chunksPerShard, boolean dense) implements ConfigSection {
  @Override
  public List<String> problems() {
    return chunksPerShard >= 1
        ? List.of()
        : List.of("chunks_per_shard: got " + chunksPerShard + ", expected an integer >= 1");
  }
}
