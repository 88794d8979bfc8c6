package dev.infuse.udfs.lm;

import static dev.infuse.udfs.lm.CharTokenizer.EOS;
import static dev.infuse.udfs.lm.CharTokenizer.id;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class GeneratorTest {
  /** a → b → c → EOS; every other token → itself. */
  private static double[] chain(int current) {
    int next =
        current == id('a')
            ? id('b')
            : current == id('b') ? id('c') : current == id('c') ? EOS : current;
    return LookupLm.distribution(new int[] {next}, new double[] {0.6});
  }

  @Test
  void greedyFollowsTheArgmaxAndEosEndsTheRowWithStop() {
    try (LookupLm model = LookupLm.bigram(64, true, GeneratorTest::chain)) {
      GeneratedText out =
          new Generator(model, 4).generate(List.of("a"), GenerationOptions.greedy(10)).get(0);

      assertThat(out).isEqualTo(new GeneratedText("bc", "stop", 1, 3));
    }
  }

  @Test
  void maxNewTokensEndsTheRowWithLength() {
    try (LookupLm model = LookupLm.bigram(64, true, GeneratorTest::chain)) {
      List<GeneratedText> out =
          new Generator(model, 4).generate(List.of("xx", "a"), GenerationOptions.greedy(2));

      assertThat(out)
          .containsExactly(
              new GeneratedText("xx", "length", 2, 2), new GeneratedText("bc", "length", 1, 2));
    }
  }

  @Test
  void aStopStringEndsTheRowAndIsCutFromTheText() {
    try (LookupLm model = LookupLm.bigram(64, false, GeneratorTest::chain)) {
      GenerationOptions options = new GenerationOptions(10, 0, 1, 0, List.of("zz", "c"));
      GeneratedText out = new Generator(model, 4).generate(List.of("a"), options).get(0);

      assertThat(out).isEqualTo(new GeneratedText("b", "stop", 1, 2));
    }
  }

  @Test
  void zeroMaxNewTokensGivesAnEmptyTextWithoutRunningTheModel() {
    try (LookupLm model = LookupLm.bigram(64, true, GeneratorTest::chain)) {
      GeneratedText out =
          new Generator(model, 4).generate(List.of("abc"), GenerationOptions.greedy(0)).get(0);

      assertThat(out).isEqualTo(new GeneratedText("", "length", 3, 0));
      assertThat(model.forwardCalls).hasValue(0);
    }
  }

  @Test
  void batchedOutputEqualsOneByOneForGreedyAndSeededSamplingWithAndWithoutACache() {
    List<GenerationRequest> requests = new ArrayList<>();
    String[] prompts = {"a", "bcd", "eeeeeee", "dab", "c", "abcdeab"};
    for (int i = 0; i < prompts.length; i++) {
      requests.add(
          new GenerationRequest(prompts[i], new GenerationOptions(12, 0, 1, 0, List.of())));
      requests.add(
          new GenerationRequest(
              prompts[i],
              new GenerationOptions(12, 0.9, i % 2 == 0 ? 1 : 0.8, 100 + i, List.of())));
    }
    try (LookupLm cached = new LookupLm(64, true, LookupLm::historyHash);
        LookupLm uncached = new LookupLm(64, false, LookupLm::historyHash)) {
      List<GeneratedText> batched = new Generator(cached, 16).generate(requests);
      List<GeneratedText> oneByOne = new ArrayList<>();
      for (GenerationRequest request : requests) {
        oneByOne.addAll(new Generator(cached, 1).generate(List.of(request)));
      }
      List<GeneratedText> batchedWithoutCache = new Generator(uncached, 5).generate(requests);

      assertThat(batched).isEqualTo(oneByOne).isEqualTo(batchedWithoutCache);
      assertThat(cached.widestBatch).hasValue(requests.size());
      // Rows finish at different steps, so the batch shrinks: a real test of keepRows.
      assertThat(batched.stream().map(GeneratedText::completionTokens).distinct().count())
          .isGreaterThan(2);
      assertThat(batched.stream().map(GeneratedText::finishReason)).contains("stop", "length");
    }
  }

  @Test
  void theSeedDecidesTheSampleAndATinyTopPIsGreedy() {
    try (LookupLm model = new LookupLm(64, true, LookupLm::historyHash)) {
      Generator generator = new Generator(model, 8);
      List<String> texts = new ArrayList<>();
      for (long seed = 0; seed < 6; seed++) {
        texts.add(
            generator
                .generate(List.of("ab"), new GenerationOptions(8, 1.5, 1, seed, List.of()))
                .get(0)
                .text());
      }
      GeneratedText nucleusOfOne =
          generator
              .generate(List.of("ab"), new GenerationOptions(8, 1.5, 1e-6, 7, List.of()))
              .get(0);
      GeneratedText greedy = generator.generate(List.of("ab"), GenerationOptions.greedy(8)).get(0);
      String again =
          generator
              .generate(List.of("ab"), new GenerationOptions(8, 1.5, 1, 3, List.of()))
              .get(0)
              .text();

      assertThat(texts.stream().distinct().count()).isGreaterThan(1);
      assertThat(again).isEqualTo(texts.get(3));
      assertThat(nucleusOfOne).isEqualTo(greedy);
    }
  }

  @Test
  void aLongPromptKeepsItsLastTokens() {
    // Greedily repeats the first token it has seen, so the output shows where the prompt was cut.
    try (LookupLm model =
        new LookupLm(
            8,
            true,
            history -> LookupLm.distribution(new int[] {history.get(0)}, new double[] {0.9}))) {
      GeneratedText out =
          new Generator(model, 2)
              .generate(List.of("abcdefghij"), GenerationOptions.greedy(2))
              .get(0);

      assertThat(out).isEqualTo(new GeneratedText("ee", "length", 6, 2));
    }
  }

  @Test
  void aRowEndsWithLengthWhenTheContextIsFull() {
    try (LookupLm model = LookupLm.bigram(8, true, GeneratorTest::chain)) {
      GeneratedText out =
          new Generator(model, 2).generate(List.of("xyzw"), GenerationOptions.greedy(100)).get(0);

      assertThat(out).isEqualTo(new GeneratedText("wwww", "length", 4, 4));
    }
  }

  @Test
  void badOptionsNameTheOptionAndTheExpectedValue() {
    assertThatThrownBy(() -> new GenerationOptions(5, -1, 1, 0, List.of()))
        .hasMessageContaining("temperature: got -1.0, expected a finite value >= 0");
    assertThatThrownBy(() -> new GenerationOptions(5, 0, 0, 0, List.of()))
        .hasMessageContaining("top_p: got 0.0, expected a value in (0, 1]");
    assertThatThrownBy(() -> new GenerationOptions(-1, 0, 1, 0, List.of()))
        .hasMessageContaining("max new tokens: got -1");
  }
}
