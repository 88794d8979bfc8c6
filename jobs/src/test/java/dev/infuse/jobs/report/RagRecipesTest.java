package dev.infuse.jobs.report;

import static org.assertj.core.api.Assertions.assertThat;

import dev.infuse.jobs.report.ReportData.RunInfo;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RagRecipesTest {
  private static RunInfo answer(String runId, String configJson) {
    return new RunInfo(
        runId, "answer", "succeeded", "h", configJson, "sha", "0.1", "3.5", null, null, Map.of());
  }

  private static final String DEFAULT_RAG =
      "{\"rag\":{\"recipe\":\"default\"},\"answer\":{\"setting\":\"rag\",\"k\":4,"
          + "\"chunk_order\":\"best_last\",\"reader\":\"zero_shot\",\"mode\":\"auto\"},"
          + "\"chunk\":{\"unit\":\"tokens\",\"max_tokens\":1024,\"overlap_tokens\":0,"
          + "\"tokenizer\":\"default\",\"prefix_template\":null},"
          + "\"retrieve\":{\"scoping\":\"auto\",\"retriever\":\"hybrid\",\"k\":4,"
          + "\"query_template\":\"query/question\",\"rerank\":null},"
          + "\"embed\":{\"model\":\"default\",\"long_text\":\"window\"}}";

  private static final String ENTIGRAPH_RAG =
      "{\"rag\":{\"recipe\":\"entigraph\"},\"answer\":{\"setting\":\"rag\",\"k\":16,"
          + "\"chunk_order\":\"best_last\",\"reader\":\"few_shot_cot\",\"mode\":\"auto\"},"
          + "\"chunk\":{\"unit\":\"chars\",\"max_chars\":1024,\"overlap_chars\":0,"
          + "\"prefix_template\":\"Title: {title}\\n\\n\"},"
          + "\"retrieve\":{\"scoping\":\"corpus\",\"retriever\":\"dense\",\"k\":128,"
          + "\"query_template\":\"query/entigraph\",\"rerank\":\"/models/ce\","
          + "\"rerank_depth\":128,\"rerank_top_k\":16},"
          + "\"embed\":{\"model\":\"default\",\"long_text\":\"window\"}}";

  @Test
  void twoRecipesLabelTheirRagSettingsAndStateTheirRetrievalSideBySide() {
    RagRecipes recipes =
        RagRecipes.of(
            List.of(
                answer("a-default", DEFAULT_RAG),
                answer("a-entigraph", ENTIGRAPH_RAG),
                answer(
                    "a-trained",
                    "{\"rag\":{\"recipe\":\"default\"},\"answer\":{\"setting\":\"trained\"}}"),
                new RunInfo(
                    "s1",
                    "score",
                    "succeeded",
                    "h",
                    "{}",
                    "sha",
                    "0.1",
                    "3.5",
                    null,
                    null,
                    Map.of())));

    assertThat(recipes.label("a-default", "rag")).isEqualTo("rag [default]");
    assertThat(recipes.label("a-entigraph", "rag")).isEqualTo("rag [entigraph]");
    assertThat(recipes.label("a-trained", "trained")).isEqualTo("trained");
    assertThat(RagRecipes.bare("rag [entigraph]")).isEqualTo("rag");
    assertThat(Settings.order("trained_rag [default]")).isEqualTo(Settings.order("trained_rag"));

    assertThat(recipes.recipes())
        .extracting(RagRecipes.Recipe::name)
        .containsExactly("default", "entigraph");
    Map<String, String> byDefault = recipes.recipes().get(0).settings();
    Map<String, String> entigraph = recipes.recipes().get(1).settings();
    assertThat(byDefault.get("chunks"))
        .isEqualTo("1024 tokens (default tokenizer), overlap 0, no metadata prefix");
    assertThat(byDefault.get("scope")).startsWith("oracle document where a question has one");
    assertThat(byDefault.get("query")).isEqualTo("query/question");
    assertThat(byDefault.get("reranker"))
        .isEqualTo("none: no reranker was given, so the recipe ran without one");
    assertThat(entigraph.get("chunks"))
        .isEqualTo("1024 characters, split recursively, overlap 0, prefix Title: {title}\n\n");
    assertThat(entigraph.get("scope"))
        .isEqualTo("corpus: each question searches its benchmark's whole corpus");
    assertThat(entigraph.get("retriever"))
        .isEqualTo("dense, top 128, embedder default (long texts: window)");
    assertThat(entigraph.get("reranker"))
        .isEqualTo("/models/ce: top 128 candidates reranked, best 16 kept");
    assertThat(entigraph.get("reader"))
        .isEqualTo("16 chunks, best_last, few_shot_cot prompt, auto mode");
  }

  @Test
  void theDefaultRecipeAloneKeepsTheSettingNamesAsTheyWere() {
    RagRecipes recipes = RagRecipes.of(List.of(answer("a-default", DEFAULT_RAG)));
    assertThat(recipes.label("a-default", "rag")).isEqualTo("rag");
    assertThat(recipes.recipes()).hasSize(1);
  }
}
