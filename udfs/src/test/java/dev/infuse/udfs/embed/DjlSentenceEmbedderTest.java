package dev.infuse.udfs.embed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.infuse.udfs.model.ExecutorModels;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DjlSentenceEmbedderTest {
  /** One MiniLM for the whole class, through the same cache the jobs use. */
  private static final EmbedderSpec SPEC = new EmbedderSpec("default", "cpu", 4, 1, "window");

  private static TextEmbedder embedder() {
    return ExecutorModels.get(SPEC);
  }

  @Test
  void ranksARelatedSentenceAboveAnUnrelatedOne() {
    float[][] v =
        embedder()
            .embed(
                List.of(
                    "How do I bake sourdough bread at home?",
                    "A simple recipe for baking a sourdough loaf in your own kitchen.",
                    "The central bank raised interest rates by half a percentage point."));
    assertThat(embedder().modelId()).isEqualTo("all-minilm-l6-v2+window256-overlap64");
    assertThat(embedder().dimension()).isEqualTo(384);
    double related = dot(v[0], v[1]);
    double unrelated = dot(v[0], v[2]);
    assertThat(related).isGreaterThan(0.5).isGreaterThan(unrelated + 0.3);
  }

  @Test
  void vectorsAreUnitLengthAndTheSameAloneOrInABatchInInputOrder() {
    List<String> texts =
        new ArrayList<>(
            List.of(
                "short",
                "a somewhat longer sentence about rivers and lakes",
                "x",
                "Paris is the capital of France.",
                "An 😀 emoji and a lone \uD800 surrogate",
                "words ".repeat(400))); // longer than MAX_TOKENS: windowed, not an error
    float[][] batched = embedder().embed(texts);
    for (int i = 0; i < texts.size(); i++) {
      float[] alone = embedder().embed(List.of(texts.get(i)))[0];
      assertThat(Math.sqrt(dot(batched[i], batched[i]))).isCloseTo(1.0, within(1e-5));
      for (int d = 0; d < alone.length; d++) {
        assertThat(batched[i][d])
            .as("text %d, dimension %d", i, d)
            .isCloseTo(alone[d], within(1e-5f));
      }
    }
    assertThat(embedder().embed(List.of())).isEmpty();
  }

  @Test
  void aMissingOrIncompleteModelDirectoryIsAClearError(@TempDir Path dir) throws IOException {
    assertThatThrownBy(() -> new EmbedderSpec("/nope/model", "cpu", 8, 1, "window").load())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("embed model: got /nope/model, which is not a directory")
        .hasMessageContaining("model.onnx or model.pt beside tokenizer.json");
    assertThatThrownBy(() -> EmbeddingModelFiles.resolve(dir.toString()))
        .hasMessageContaining("holds neither model.onnx nor model.pt");
    Files.writeString(dir.resolve("model.onnx"), "not a model");
    assertThatThrownBy(() -> EmbeddingModelFiles.resolve(dir.toString()))
        .hasMessageContaining("has no tokenizer.json");
    Files.write(
        dir.resolve("tokenizer.json"),
        getClass()
            .getClassLoader()
            .getResourceAsStream("all-minilm-l6-v2-tokenizer.json")
            .readAllBytes());
    assertThat(EmbeddingModelFiles.modelId(dir.toString()))
        .startsWith(dir.getFileName() + "@")
        .hasSize(dir.getFileName().toString().length() + 13);
    assertThatThrownBy(() -> new EmbedderSpec(dir.toString(), "cpu", 8, 1, "window").load())
        .hasMessageContaining(
            "embed model: cannot load "
                + dir.resolve("model.onnx")
                + " with the OnnxRuntime engine");
  }

  @Test
  void specProblemsNameTheOptionAndTheExpectedValue() {
    assertThat(new EmbedderSpec(" ", "tpu", 0, 0, "chop").problems())
        .containsExactly(
            "model: got nothing, expected 'default' or a local model directory",
            "device: got tpu, expected auto, cpu, gpu or gpu:N (N >= 0)",
            "batch_size: got 0, expected 1..4096",
            "threads: got 0, expected an integer >= 1",
            "long_text: got 'chop', expected window or warn");
    assertThat(EmbedderSpec.defaults().problems()).isEmpty();
  }

  @Test
  void batchesAreLengthSortedAndPaddedWithAZeroMask() {
    List<TokenIds> texts = List.of(ids(3), ids(1), ids(5), ids(2));
    assertThat(LengthSortedBatches.of(texts, 3))
        .containsExactly(new int[] {2, 0, 3}, new int[] {1});
    TokenBatch batch = TokenBatch.pad(List.of(ids(3), ids(1)));
    assertThat(batch.length()).isEqualTo(3);
    assertThat(batch.attentionMask()).containsExactly(1, 1, 1, 1, 0, 0);
    assertThat(batch.inputIds()).containsExactly(7, 7, 7, 7, 0, 0);
  }

  private static TokenIds ids(int length) {
    long[] ids = new long[length];
    java.util.Arrays.fill(ids, 7);
    return new TokenIds(ids, new long[length]);
  }

  private static double dot(float[] a, float[] b) {
    double sum = 0;
    for (int i = 0; i < a.length; i++) {
      sum += (double) a[i] * b[i];
    }
    return sum;
  }
}
