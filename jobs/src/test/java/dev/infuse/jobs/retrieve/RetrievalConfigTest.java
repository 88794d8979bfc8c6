package dev.infuse.jobs.retrieve;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.infuse.jobs.cli.JobCatalog;
import dev.infuse.jobs.config.ConfigException;
import dev.infuse.jobs.config.InfuseConfig;
import dev.infuse.udfs.retrieve.Retriever;
import org.junit.jupiter.api.Test;

class RetrievalConfigTest {
  @Test
  void defaultsAreTheRecipesAndBadValuesNameTheirKey() {
    InfuseConfig config = JobCatalog.configLoader().load();
    assertThat(config.section(RetrieveConfig.class).retriever()).isEqualTo(Retriever.HYBRID);
    assertThat(config.section(RetrieveConfig.class).rrfK()).isEqualTo(60);
    assertThat(config.section(RetrieveConfig.class).recallKs()).containsExactly(1, 3, 5, 10);
    assertThat(config.section(RetrieveConfig.class).scoping()).isEqualTo(Scoping.AUTO);
    assertThat(config.section(IndexConfig.class).chunksPerShard()).isEqualTo(20000);

    ConfigException error =
        (ConfigException)
            catchThrowable(
                () ->
                    JobCatalog.configLoader()
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
