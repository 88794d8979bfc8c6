package dev.infuse.udfs.retrieve;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.infuse.udfs.embed.EmbeddingModelFiles;
import dev.infuse.udfs.model.ExecutorModels;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CrossEncoderTest {
  @TempDir static Path root;
  private static CrossEncoderSpec spec;

  @BeforeAll
  static void buildModel() throws IOException {
    spec =
        new CrossEncoderSpec(
            TinyCrossEncoder.write(root.resolve("tiny-ce"), 64).toString(), "cpu", 2, 0);
  }

  @AfterAll
  static void closeModel() {
    ExecutorModels.evict(spec.cacheKey());
  }

  @Test
  void scoresEachPairByTheModelsKnownFunctionInBatchesAndInInputOrder() {
    CrossEncoder model = ExecutorModels.get(spec);
    assertThat(model.maxTokens()).isEqualTo(64); // tokenizer_config.json's model_max_length
    assertThat(model.modelId()).startsWith("tiny-ce@").hasSize("tiny-ce@".length() + 12);
    String query = "river bank";
    List<String> passages =
        List.of("the boat", "river", "bank river bank", "stone stone", "river river boat bank");
    float[] scores = model.score(query, passages);
    // Batches of 2 sorted by length: padding is masked, so a pair scores the same in any batch.
    assertThat(scores).containsExactly(1f, 2f, 4f, 1f, 4f);
    for (int i = 0; i < passages.size(); i++) {
      assertThat(scores[i]).isEqualTo(TinyCrossEncoder.expected(query, passages.get(i)));
      assertThat(model.score(query, List.of(passages.get(i)))).containsExactly(scores[i]);
    }
    assertThat(model.score(query, List.of())).isEmpty();
  }

  @Test
  void rerankingKeepsTheTopKByScoreWithTiesInFirstStageOrder() {
    CrossEncoder model = ExecutorModels.get(spec);
    List<ScoredChunk> firstStage =
        List.of(
            new ScoredChunk("c1", "d1", 9.0),
            new ScoredChunk("c2", "d1", 8.0),
            new ScoredChunk("c3", "d2", 7.5),
            new ScoredChunk("c4", "d2", 7.0),
            new ScoredChunk("c5", "d3", 6.0));
    List<String> texts =
        List.of("the boat", "river", "bank river bank", "stone stone", "river river boat bank");
    List<Reranking.Reranked> top =
        Reranking.rerank(firstStage, model.score("river bank", texts), 3);
    // c3 and c5 score 4 (c3 first: it ranked higher before), c2 scores 2; c1 and c4 score 1.
    assertThat(top)
        .containsExactly(
            new Reranking.Reranked(firstStage.get(2), 3, 7.5, 4.0),
            new Reranking.Reranked(firstStage.get(4), 5, 6.0, 4.0),
            new Reranking.Reranked(firstStage.get(1), 2, 8.0, 2.0));
    assertThat(Reranking.rerank(firstStage, new float[] {1, 1, 1, 1, 1}, 10))
        .extracting(r -> r.chunk().chunkId())
        .containsExactly("c1", "c2", "c3", "c4", "c5");
    assertThatThrownBy(() -> Reranking.rerank(firstStage, new float[] {1, 2}, 3))
        .hasMessage("rerank: got 2 score(s) for 5 candidate(s)");
    assertThatThrownBy(() -> Reranking.rerank(firstStage, new float[] {1, Float.NaN, 1, 1, 1}, 3))
        .hasMessage("rerank: the cross-encoder scored chunk c2 NaN, expected a finite number");
  }

  @Test
  void pairsLongerThanTheModelIsTruncatedLongestFirst() throws IOException {
    // model_max_length 8: [CLS] river bank [SEP] + 3 passage tokens + [SEP].
    CrossEncoderSpec short8 =
        new CrossEncoderSpec(
            TinyCrossEncoder.write(root.resolve("tiny-ce-8"), 8).toString(), "cpu", 4, 0);
    try (CrossEncoder model = short8.load()) {
      assertThat(model.maxTokens()).isEqualTo(8);
      assertThat(model.score("river bank", List.of("stone stone stone river bank")))
          .containsExactly(1f);
    }
    // rerank_max_length overrides the model's length.
    try (CrossEncoder model =
        new CrossEncoderSpec(root.resolve("tiny-ce-8").toString(), "cpu", 4, 16).load()) {
      assertThat(model.maxTokens()).isEqualTo(16);
      assertThat(model.score("river bank", List.of("stone stone stone river bank")))
          .containsExactly(3f);
    }
  }

  @Test
  void theModelsLengthComesFromItsFilesInOrder(@TempDir Path dir) throws IOException {
    byte[] tokenizer = "{\"truncation\": null}".getBytes();
    assertThat(CrossEncoderFiles.modelMaxTokens(dir, tokenizer))
        .isEqualTo(CrossEncoderFiles.FALLBACK_MAX_TOKENS);
    Files.writeString(
        dir.resolve("config.json"),
        "{\"model_type\": \"xlm-roberta\", \"max_position_embeddings\": 514}");
    assertThat(CrossEncoderFiles.modelMaxTokens(dir, tokenizer)).isEqualTo(512);
    assertThat(
            CrossEncoderFiles.modelMaxTokens(
                dir, "{\"truncation\": {\"max_length\": 384}}".getBytes()))
        .isEqualTo(384);
    // Hugging Face's "no limit" sentinel is not a length.
    Files.writeString(dir.resolve("tokenizer_config.json"), "{\"model_max_length\": 1e30}");
    assertThat(CrossEncoderFiles.modelMaxTokens(dir, tokenizer)).isEqualTo(512);
    Files.writeString(dir.resolve("tokenizer_config.json"), "{\"model_max_length\": 256}");
    assertThat(CrossEncoderFiles.modelMaxTokens(dir, tokenizer)).isEqualTo(256);
  }

  @Test
  void aMissingModelOrAModelThatIsNotACrossEncoderIsAClearError(@TempDir Path dir)
      throws IOException {
    assertThatThrownBy(() -> CrossEncoderFiles.resolve("/nope/reranker", 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("retrieve.rerank: got /nope/reranker, which is not a directory")
        .hasMessageContaining("model.onnx or model.pt beside tokenizer.json");
    assertThatThrownBy(() -> CrossEncoderFiles.resolve(dir.toString(), 0))
        .hasMessageContaining("holds neither model.onnx nor model.pt");
    // all-MiniLM-L6-v2 is a sentence embedder: one vector per token, not one logit per pair.
    Files.createSymbolicLink(
        dir.resolve("model.onnx"), EmbeddingModelFiles.resolve("default").modelFile());
    assertThatThrownBy(() -> CrossEncoderFiles.resolve(dir.toString(), 0))
        .hasMessageContaining("has no tokenizer.json");
    Files.copy(root.resolve("tiny-ce").resolve("tokenizer.json"), dir.resolve("tokenizer.json"));
    try (CrossEncoder embedder = new CrossEncoderSpec(dir.toString(), "cpu", 4, 0).load()) {
      assertThatThrownBy(() -> embedder.score("river bank", List.of("bank", "stone river")))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("for 2 pair(s), expected [2] or [2, 1]");
    }
    assertThat(new CrossEncoderSpec(" ", "tpu", 0, 2).problems())
        .containsExactly(
            "rerank: got nothing, expected a local cross-encoder directory",
            "rerank_device: got tpu, expected auto, cpu, gpu or gpu:N (N >= 0)",
            "rerank_batch_size: got 0, expected 1..4096",
            "rerank_max_length: got 2, expected 0 (the model's own) or >= 3");
  }
}
