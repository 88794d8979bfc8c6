package dev.infuse.udfs.text;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ai.djl.util.Utils;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

class HuggingFaceTextTokenizerTest {
  private final TextTokenizer tokenizer = Tokenizers.defaultTokenizer();

  @Test
  void loadsOfflineWithTheNativeLibraryExtractedFromTheJar() throws IOException {
    assertThat(tokenizer.id()).isEqualTo("all-minilm-l6-v2");
    assertThat(Utils.isOfflineMode()).isTrue();
    Path cache = Utils.getEngineCacheDir("tokenizers");
    try (Stream<Path> files = Files.walk(cache)) {
      assertThat(files.map(f -> f.getFileName().toString()))
          .anyMatch(name -> name.startsWith("libtokenizers.") || name.equals("tokenizers.dll"));
    }
  }

  @Test
  void aBatchEncodesEachTextAsAloneDoes() {
    java.util.List<String> texts =
        java.util.List.of(
            "Hello world.",
            "",
            "Café 😀 日本語 naïve 𝔘 end",
            "lone \uD800 surrogate",
            "x ".repeat(600));
    int[][] batch = tokenizer.ids(texts);
    assertThat(batch.length).isEqualTo(texts.size());
    for (int i = 0; i < texts.size(); i++) {
      assertThat(batch[i]).as(texts.get(i)).isEqualTo(tokenizer.ids(texts.get(i)));
    }
    assertThat(batch[4]).hasSize(600);
  }

  @Test
  void countsTheTextsOwnTokensWithoutClsAndSep() {
    assertThat(tokenizer.count("Hello world.")).isEqualTo(3);
    assertThat(tokenizer.count("")).isZero();
    assertThat(tokenizer.count(" \n\t ")).isZero();
  }

  @Test
  void spansAreTheTokensSurfaceText() {
    String text = "Hello world.";
    assertThat(surfaces(text, tokenizer.spans(text))).containsExactly("Hello", "world", ".");
  }

  @Test
  void spansAreUtf16OffsetsAfterAccentsEmojiAndCjk() {
    String text = "Café 😀 日本語 naïve 𝔘 end";
    assertThat(surfaces(text, tokenizer.spans(text)))
        .containsExactly("Café", "😀", "日", "本", "語", "naïve", "𝔘", "end");
  }

  @Test
  void aLoneSurrogateDoesNotShiftLaterSpans() {
    String text = "ab\uD800 cd";
    List<String> surfaces = surfaces(text, tokenizer.spans(text));
    assertThat(surfaces).last().isEqualTo("cd");
  }

  @Test
  void doesNotTruncateLongText() {
    String text = "word ".repeat(3000);
    assertThat(tokenizer.count(text)).isEqualTo(3000);
  }

  @Test
  void spansOfALongArticleAreOrderedAndInsideTheText() {
    String article = QualityArticles.load().get(0);
    TokenSpans spans = tokenizer.spans(article);
    assertThat(spans.size()).isGreaterThan(3000);
    int previousEnd = 0;
    for (int i = 0; i < spans.size(); i++) {
      assertThat(spans.start(i)).isGreaterThanOrEqualTo(previousEnd);
      assertThat(spans.end(i)).isGreaterThan(spans.start(i)).isLessThanOrEqualTo(article.length());
      assertThat(article.substring(spans.start(i), spans.end(i))).isNotBlank();
      previousEnd = spans.end(i);
    }
  }

  @Test
  void oneInstanceCountsTheSameFromManyThreads() throws Exception {
    List<String> articles = QualityArticles.load();
    List<Integer> expected = articles.stream().map(tokenizer::count).toList();
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Future<List<Integer>>> results = new ArrayList<>();
      for (int t = 0; t < 8; t++) {
        results.add(pool.submit(() -> articles.stream().map(tokenizer::count).toList()));
      }
      for (Future<List<Integer>> result : results) {
        assertThat(result.get()).isEqualTo(expected);
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void rejectsBytesThatAreNotATokenizerJson() {
    byte[] notATokenizer = "{\"hello\": 1}".getBytes(StandardCharsets.UTF_8);
    assertThatThrownBy(() -> new HuggingFaceTextTokenizer("x", notATokenizer))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not a Hugging Face tokenizer.json");
  }

  private static List<String> surfaces(String text, TokenSpans spans) {
    List<String> surfaces = new ArrayList<>();
    for (int i = 0; i < spans.size(); i++) {
      surfaces.add(text.substring(spans.start(i), spans.end(i)));
    }
    return surfaces;
  }
}
