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
    // Today's question-only query and no reranker, unless a recipe sets them.
    RetrieveConfig retrieve = config.section(RetrieveConfig.class);
    assertThat(retrieve.queryTemplate()).isEqualTo("query/question");
    assertThat(retrieve.reranks()).isFalse();
    assertThat(retrieve.rerankSpec()).isNull();
    assertThat(retrieve.kept()).isEqualTo(10);
    assertThat(retrieve.firstStageK()).isEqualTo(10);
    assertThat(retrieve.rerankDepth()).isEqualTo(128);
    assertThat(retrieve.rerankTopK()).isEqualTo(16);
    RetrieveConfig reranking =
        JobCatalog.configLoader()
            .set("retrieve.rerank=/models/ce")
            .load()
            .section(RetrieveConfig.class);
    assertThat(reranking.kept()).isEqualTo(16);
    assertThat(reranking.firstStageK()).isEqualTo(128);
    assertThat(reranking.rerankSpec().cacheKey())
        .isEqualTo("cross-encoder:/models/ce|auto|batch=32|max=0");

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
                        .set("retrieve.query_template=")
                        .set("retrieve.rerank_top_k=0")
                        .set("retrieve.rerank_depth=-1")
                        .set("retrieve.rerank_device=tpu")
                        .set("retrieve.rerank_batch_size=0")
                        .set("retrieve.rerank_max_length=2")
                        .load());
    assertThat(error.problems())
        .containsExactlyInAnyOrder(
            "retrieve.retriever: got splade, expected bm25, dense or hybrid",
            "retrieve.scoping: got page, expected auto, document or corpus",
            "retrieve.recall_ks: got 0, expected integers >= 1",
            "retrieve.rrf_depth: got 3, expected an integer >= retrieve.k (5)",
            "index.chunks_per_shard: got 0, expected an integer >= 1",
            "retrieve.query_template: got nothing, expected the id of a query template in"
                + " run.prompts_dir (query/question, query/entigraph)",
            "retrieve.rerank_top_k: got 0, expected an integer >= 1",
            "retrieve.rerank_depth: got -1, expected an integer >= retrieve.rerank_top_k (0)",
            "retrieve.rerank_device: got tpu, expected auto, cpu, gpu or gpu:N (N >= 0)",
            "retrieve.rerank_batch_size: got 0, expected 1..4096",
            "retrieve.rerank_max_length: got 2, expected 0 (the model's own) or >= 3");
  }
}
