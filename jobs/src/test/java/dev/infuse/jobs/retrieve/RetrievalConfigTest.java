package dev.infuse.jobs.retrieve;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.infuse.jobs.config.ConfigException;
import dev.infuse.jobs.config.ConfigLoader;
import dev.infuse.jobs.config.InfuseConfig;
import org.junit.jupiter.api.Test;

class RetrievalConfigTest {
  @Test
  void defaultsAreTheRecipesAndBadValuesNameTheirKey() {
    InfuseConfig config = ConfigLoader.withDefaults().load();
    assertThat(config.retrieve().retriever()).isEqualTo("hybrid");
    assertThat(config.retrieve().rrfK()).isEqualTo(60);
    assertThat(config.retrieve().recallKs()).containsExactly(1, 3, 5, 10);
    assertThat(config.retrieve().scoping()).isEqualTo("auto");
    assertThat(config.index().chunksPerShard()).isEqualTo(20000);

    ConfigException error =
        (ConfigException)
            catchThrowable(
                () ->
                    ConfigLoader.withDefaults()
                        .set("retrieve.retriever=splade")
                        .set("retrieve.scoping=page")
                        .set("retrieve.k=5")
                        .set("retrieve.recall_ks=[0, 10]")
                        .set("retrieve.rrf_depth=3")
                        .set("index.chunks_per_shard=0")
                        .load());
    assertThat(error.problems())
        .containsExactlyInAnyOrder(
            "retrieve.retriever: got splade, expected bm25, dense or hybrid",
            "retrieve.scoping: got page, expected auto, document or corpus",
            "retrieve.recall_ks: got 0, expected integers >= 1",
            "retrieve.rrf_depth: got 3, expected an integer >= retrieve.k (5)",
            "index.chunks_per_shard: got 0, expected an integer >= 1");
  }
}
