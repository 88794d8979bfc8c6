package dev.infuse.udfs.embed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import dev.infuse.udfs.model.ExecutorModels;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code embed.long_text}: texts over the encoder's window are windowed or truncated, never
 * silently.
 */
class LongTextEmbeddingTest {
  private static final EmbedderSpec WINDOW = new EmbedderSpec("default", "cpu", 4, 1, "window");
  private static final EmbedderSpec WARN = new EmbedderSpec("default", "cpu", 4, 1, "warn");

  /** Common words MiniLM's WordPiece keeps whole, so that n words are n text tokens. */
  private static final List<String> WORDS =
      List.of(
          "the",
          "river",
          "ran",
          "past",
          "an",
          "old",
          "mill",
          "where",
          "children",
          "played",
          "each",
          "summer",
          "while",
          "their",
          "parents",
          "worked",
          "in",
          "green",
          "fields",
          "near",
          "small",
          "town",
          "of",
          "stone",
          "houses",
          "and",
          "quiet",
          "streets",
          "under",
          "blue",
          "sky",
          "with",
          "birds");

  @Test
  void aTextThatFitsIsOneWindowEqualToTheTokenizersOwnEncoding() throws IOException {
    byte[] json = EmbeddingModelFiles.resolve("default").tokenizerJson();
    String text = "Paris is the capital of France, and an 😀 emoji is one token.";
    try (EmbeddingTokenizer tokenizer = new EmbeddingTokenizer(json, 256);
        HuggingFaceTokenizer plain =
            HuggingFaceTokenizer.newInstance(
                new ByteArrayInputStream(json),
                Map.of("addSpecialTokens", "true", "truncation", "false", "padding", "false"))) {
      assertThat(tokenizer.textCapacity()).isEqualTo(254); // [CLS] … [SEP]
      List<List<TokenIds>> windows = tokenizer.windows(List.of(text), 64);
      assertThat(windows.get(0)).hasSize(1);
      assertThat(windows.get(0).get(0).ids()).containsExactly(plain.encode(text).getIds());
      assertThat(windows.get(0).get(0).typeIds()).containsExactly(plain.encode(text).getTypeIds());
    }
  }

  @Test
  void truncationIsExactlyWhatTheTokenizerTruncatingTo256Gave() throws IOException {
    byte[] json = EmbeddingModelFiles.resolve("default").tokenizerJson();
    String text = "Some words, then more words; ".repeat(120);
    try (EmbeddingTokenizer tokenizer = new EmbeddingTokenizer(json, 256);
        HuggingFaceTokenizer truncating =
            HuggingFaceTokenizer.newInstance(
                new ByteArrayInputStream(json),
                Map.of(
                    "addSpecialTokens", "true",
                    "truncation", "true",
                    "padding", "false",
                    "maxLength", "256"))) {
      long[] expected = truncating.encode(text).getIds();
      assertThat(expected).hasSize(256);
      assertThat(tokenizer.tokenize(List.of(text)).get(0).ids()).containsExactly(expected);
      List<TokenIds> windows = tokenizer.windows(List.of(text), 64).get(0);
      assertThat(windows.size()).isGreaterThan(2);
      assertThat(windows.get(0).ids()).containsExactly(expected);
      for (TokenIds window : windows) {
        assertThat(window.length()).isEqualTo(256); // every window is full, the last one too
        assertThat(window.ids()[0]).isEqualTo(expected[0]);
        assertThat(window.ids()[255]).isEqualTo(expected[255]);
      }
    }
  }

  @Test
  void windowsStartEveryCapacityMinusOverlapTokensAndTheLastEndsAtTheEnd() {
    assertThat(EmbeddingTokenizer.windowStarts(0, 254, 64)).containsExactly(0);
    assertThat(EmbeddingTokenizer.windowStarts(254, 254, 64)).containsExactly(0);
    assertThat(EmbeddingTokenizer.windowStarts(255, 254, 64)).containsExactly(0, 1);
    assertThat(EmbeddingTokenizer.windowStarts(444, 254, 64)).containsExactly(0, 190);
    assertThat(EmbeddingTokenizer.windowStarts(600, 254, 64)).containsExactly(0, 190, 346);
    assertThat(EmbeddingTokenizer.windowStarts(10, 4, 0)).containsExactly(0, 4, 6);
    assertThatThrownBy(() -> EmbeddingTokenizer.windowStarts(10, 4, 4))
        .hasMessageContaining("expected 0 <= overlap < capacity");
  }

  @Test
  void aLongTextIsTheNormalisedMeanOfItsWindowsEmbeddedOnTheirOwn() {
    List<String> words = new ArrayList<>();
    for (int i = 0; i < 600; i++) {
      // A varied order, so that windows differ: word i is WORDS[(i * 7 + i / 33) % 33].
      words.add(WORDS.get((i * 7 + i / WORDS.size()) % WORDS.size()));
    }
    String text = String.join(" ", words);
    byte[] json = EmbeddingModelFiles.resolve("default").tokenizerJson();
    try (EmbeddingTokenizer tokenizer = new EmbeddingTokenizer(json, 256)) {
      // The premise: one token per word ([CLS] word [SEP]), so a window of tokens is a run of
      // words.
      for (List<TokenIds> word : tokenizer.windows(WORDS, 64)) {
        assertThat(word.get(0).length()).isEqualTo(3);
      }
      assertThat(tokenizer.windows(List.of(text), 64).get(0)).hasSize(3);
    }
    int[] starts = EmbeddingTokenizer.windowStarts(600, 254, 64);
    assertThat(starts).containsExactly(0, 190, 346);
    List<String> windowTexts = new ArrayList<>();
    for (int start : starts) {
      windowTexts.add(String.join(" ", words.subList(start, start + 254)));
    }
    TextEmbedder windowed = ExecutorModels.get(WINDOW);
    float[][] direct = windowed.embed(windowTexts);
    float[] mean = new float[direct[0].length];
    for (float[] vector : direct) {
      for (int d = 0; d < mean.length; d++) {
        mean[d] += vector[d] / direct.length;
      }
    }
    Pooling.normalized(mean);

    EmbeddedTexts result = windowed.embedAll(List.of(text, "a short text"));
    assertThat(result.windows()).containsExactly(3, 1);
    assertClose(result.vectors()[0], mean, 1e-5f);
    assertThat(dot(result.vectors()[0], result.vectors()[0])).isCloseTo(1.0, within(1e-5));
    // The windows differ, so the mean is not any one of them.
    assertThat(dot(result.vectors()[0], direct[0])).isLessThan(0.999);

    // warn: the first window only, and the same window count reported.
    EmbeddedTexts truncated = ExecutorModels.get(WARN).embedAll(List.of(text));
    assertThat(truncated.windows()).containsExactly(3);
    assertClose(truncated.vectors()[0], direct[0], 1e-5f);
  }

  @Test
  void aShortTextIsEmbeddedTheSameInBothModesAndTheModeIsPartOfTheModelId() {
    List<String> texts = List.of("The mill stood by the river.", "Children played there.");
    EmbeddedTexts windowed = ExecutorModels.get(WINDOW).embedAll(texts);
    EmbeddedTexts truncated = ExecutorModels.get(WARN).embedAll(texts);
    assertThat(windowed.windows()).containsExactly(1, 1);
    for (int i = 0; i < texts.size(); i++) {
      assertThat(windowed.vectors()[i]).containsExactly(truncated.vectors()[i]);
    }
    assertThat(ExecutorModels.get(WARN).modelId()).isEqualTo("all-minilm-l6-v2");
    assertThat(ExecutorModels.get(WINDOW).modelId())
        .isEqualTo("all-minilm-l6-v2+window256-overlap64")
        .isEqualTo(WINDOW.vectorsModelId());
    assertThat(WARN.vectorsModelId()).isEqualTo("all-minilm-l6-v2");
    assertThat(WINDOW.cacheKey()).isNotEqualTo(WARN.cacheKey());
  }

  private static void assertClose(float[] actual, float[] expected, float tolerance) {
    assertThat(actual).hasSameSizeAs(expected);
    for (int d = 0; d < expected.length; d++) {
      assertThat(actual[d]).as("dimension %d", d).isCloseTo(expected[d], within(tolerance));
    }
  }

  private static double dot(float[] a, float[] b) {
    double sum = 0;
    for (int i = 0; i < a.length; i++) {
      sum += (double) a[i] * b[i];
    }
    return sum;
  }
}
