package dev.infuse.udfs.lm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Log-likelihood requests tokenized by real BPE tokenizers, where a merge across the
 * context/continuation boundary makes lm-evaluation-harness's rule (the continuation is the tail of
 * {@code encode(context + continuation)} after {@code len(encode(context))} tokens) differ from
 * encoding the continuation alone. Every expected id and log-likelihood is worked out by hand in
 * the comments.
 */
class LogLikelihoodBpeTest {
  private static final double TOLERANCE = 1e-5;

  /**
   * GPT-2 layout. Ranks: "2 3" before "1 2", so "123" is [1, 23] while "12" alone is [12]; "Ġ x" is
   * " x"; "f Ã" (f with é's first byte) before "a f" before "Ã ©" (é), so "café" is [c, a, fÃ, ©]
   * while "caf" alone is [c, af] and "é" alone is [é].
   */
  private static final BpeTokenizer GPT2 =
      BpeTokenizer.gpt2Style("2 3", "1 2", "Ġ x", "f Ã", "a f", "Ã ©");

  /** Llama 2 layout: "▁Q:▁x" is [▁Q, :, ▁x], but " x" alone is "▁▁x", [▁, ▁x]. */
  private static final BpeTokenizer LLAMA = BpeTokenizer.sentencePieceStyle("▁Q:x", "▁ Q", "▁ x");

  @Test
  void theTokenizersMergeAsWorkedOutByHand() {
    try (LookupLm model = model(GPT2, 64, new NextTokens())) {
      assertThat(encode(model, "x=123")).containsExactly(GPT2.ids("x", "=", "1", "23"));
      assertThat(encode(model, "x=12")).containsExactly(GPT2.ids("x", "=", "12"));
      assertThat(encode(model, "Q: x")).containsExactly(GPT2.ids("Q", ":", "Ġx"));
      assertThat(encode(model, "café")).containsExactly(GPT2.ids("c", "a", "fÃ", "©"));
      assertThat(encode(model, "caf")).containsExactly(GPT2.ids("c", "af"));
      assertThat(encode(model, "é")).containsExactly(GPT2.ids("Ã©"));
      // The ids are the bytes below 256: é is 0xC3 0xA9 in UTF-8.
      assertThat(GPT2.ids("Q", "Ġ", "Ã", "©")).containsExactly(0x51, 0x20, 0xC3, 0xA9);
    }
    try (LookupLm model = model(LLAMA, 64, new NextTokens())) {
      assertThat(encode(model, "Q: x")).containsExactly(LLAMA.ids("▁Q", ":", "▁x"));
      assertThat(encode(model, " x")).containsExactly(LLAMA.ids("▁", "▁x"));
    }
  }

  @Test
  void aMergeAcrossTheBoundaryTakesTheContinuationFromTheWholeEncoding() {
    // "x=12" is [x, =, 12] (3 tokens); "x=123" is [x, =, 1, 23]; the continuation is what follows
    // token 3: [23], scored after [x, =, 12]. Encoding "3" alone would give [3].
    NextTokens next = new NextTokens().after(GPT2.ids("x", "=", "12"), GPT2.id("23"), 0.5);
    try (LookupLm model = model(GPT2, 64, next)) {
      LogLikelihoodRequest request = new LogLikelihoodRequest("x=12", "3");

      assertPair(model, request, GPT2.ids("x", "=", "12"), GPT2.ids("23"));
      assertThat(score(model, request).logLikelihood()).isCloseTo(Math.log(0.5), within(TOLERANCE));
    }
  }

  @Test
  void aContextEndingInASpaceScoresAsTheSameTextWithTheSpaceOnTheContinuation() {
    // "Q: " + "x" becomes "Q:" + " x": [Q, :] then [Ġx], one token. Without the move "Q: " is
    // [Q, :, Ġ] and "x" follows it.
    NextTokens next = new NextTokens().after(GPT2.ids("Q", ":"), GPT2.id("Ġx"), 0.6);
    try (LookupLm model = model(GPT2, 64, next)) {
      for (LogLikelihoodRequest request :
          List.of(new LogLikelihoodRequest("Q: ", "x"), new LogLikelihoodRequest("Q:", " x"))) {
        assertPair(model, request, GPT2.ids("Q", ":"), GPT2.ids("Ġx"));
        LogLikelihood out = score(model, request);
        assertThat(out.logLikelihood()).isCloseTo(Math.log(0.6), within(TOLERANCE));
        assertThat(out.continuationTokens()).isEqualTo(1);
        assertThat(out.isGreedy()).isTrue();
      }
    }
  }

  @Test
  void aContinuationStartingWithASpaceIsNotEncodedOnItsOwnWhereTheTokenizerPrependsOne() {
    // Llama 2: "Q:" is "▁Q:", [▁Q, :]; "Q: x" is "▁Q:▁x", [▁Q, :, ▁x]: the continuation is [▁x].
    // Encoding " x" alone gives "▁▁x", [▁, ▁x]. A context ending in the space gives the same.
    NextTokens next = new NextTokens().after(LLAMA.ids("▁Q", ":"), LLAMA.id("▁x"), 0.6);
    try (LookupLm model = model(LLAMA, 64, next)) {
      for (LogLikelihoodRequest request :
          List.of(new LogLikelihoodRequest("Q:", " x"), new LogLikelihoodRequest("Q: ", "x"))) {
        assertPair(model, request, LLAMA.ids("▁Q", ":"), LLAMA.ids("▁x"));
        assertThat(score(model, request).logLikelihood())
            .isCloseTo(Math.log(0.6), within(TOLERANCE));
      }
    }
  }

  @Test
  void aMultiByteCharacterCanMergeWithTheContextsLastByte() {
    // "caf" is [c, af]; "café" is [c, a, fÃ, ©]: after 2 tokens come [fÃ, ©], é's first byte
    // merged with the context's f. The input is [c, af, fÃ] (the last token is only predicted):
    // ln 0.5 + ln 0.25. Encoding "é" alone would give [é].
    NextTokens next =
        new NextTokens()
            .after(GPT2.ids("c", "af"), GPT2.id("fÃ"), 0.5)
            .after(GPT2.ids("c", "af", "fÃ"), GPT2.id("©"), 0.25);
    try (LookupLm model = model(GPT2, 64, next)) {
      LogLikelihoodRequest request = new LogLikelihoodRequest("caf", "é");

      assertPair(model, request, GPT2.ids("c", "af", "fÃ"), GPT2.ids("fÃ", "©"));
      LogLikelihood out = score(model, request);
      assertThat(out.logLikelihood()).isCloseTo(Math.log(0.5) + Math.log(0.25), within(TOLERANCE));
      assertThat(out.continuationTokens()).isEqualTo(2);
    }
  }

  @Test
  void aLongContextKeepsItsLastTokensCountedInTokens() {
    // Context length 2, so the input is (context + continuation)[-3:][:-1].
    // "Q: x=12" + "3": [Q, :, Ġx, =, 12] + [23] → input [=, 12]; ln 0.5.
    // "caf" + "é": [c, af] + [fÃ, ©] → input [af, fÃ]; ln 0.4 + ln 0.25.
    NextTokens next =
        new NextTokens()
            .after(GPT2.ids("=", "12"), GPT2.id("23"), 0.5)
            .after(GPT2.ids("af"), GPT2.id("fÃ"), 0.4)
            .after(GPT2.ids("af", "fÃ"), GPT2.id("©"), 0.25);
    try (LookupLm model = model(GPT2, 2, next)) {
      LogLikelihoodRequest number = new LogLikelihoodRequest("Q: x=12", "3");
      LogLikelihoodRequest accent = new LogLikelihoodRequest("caf", "é");

      assertPair(model, number, GPT2.ids("=", "12"), GPT2.ids("23"));
      assertPair(model, accent, GPT2.ids("af", "fÃ"), GPT2.ids("fÃ", "©"));
      List<LogLikelihood> out = new LogLikelihoodScorer(model, 2).score(List.of(number, accent));
      assertThat(out.get(0).logLikelihood()).isCloseTo(Math.log(0.5), within(TOLERANCE));
      assertThat(out.get(1).logLikelihood())
          .isCloseTo(Math.log(0.4) + Math.log(0.25), within(TOLERANCE));
    }
  }

  @Test
  void aNextLineAtTheEndOfTheContextMovesLikeAnyPythonWhitespace() {
    // Python's "Q:\x85".rstrip() is "Q:", so after [Q, :] the continuation is "\x85x": U+0085 is
    // 0xC2 0x85 in UTF-8, two byte tokens, then x. Kept in the context, it would leave only [x].
    try (LookupLm model = model(GPT2, 64, new NextTokens())) {
      assertPair(
          model,
          new LogLikelihoodRequest("Q:\u0085", "x"),
          new long[] {'Q', ':', 0xC2, 0x85},
          new long[] {0xC2, 0x85, 'x'});
    }
  }

  @Test
  void accNormDividesByCodePointsOfTheOption() {
    // " 😀" after "Q:" is [Ġ, F0, 9F, 98, 80] (the emoji's 4 UTF-8 bytes): 5 ln 0.5 = -3.4657.
    // " ab" is [Ġ, a, b]: ln 0.5 + 2 ln 0.2 = -3.9120. acc: the emoji. acc_norm over code points
    // (1 and 2): -3.4657 < -1.9560, so "ab"; over UTF-16 units (2 and 2) it would be the emoji.
    long[] prompt = GPT2.ids("Q", ":");
    long[] emoji = {0x20, 0xF0, 0x9F, 0x98, 0x80};
    NextTokens next = new NextTokens();
    for (int i = 0; i < emoji.length; i++) {
      next.after(concat(prompt, Arrays.copyOf(emoji, i)), emoji[i], 0.5);
    }
    next.after(concat(prompt, GPT2.ids("Ġ")), 'a', 0.2)
        .after(concat(prompt, GPT2.ids("Ġ", "a")), 'b', 0.2);
    try (LookupLm model = model(GPT2, 64, next)) {
      MultipleChoiceScore score =
          new LogLikelihoodScorer(model, 4).multipleChoice("Q:", List.of("😀", "ab"));

      assertThat(score.choices().get(0).logLikelihood())
          .isCloseTo(5 * Math.log(0.5), within(TOLERANCE));
      assertThat(score.choices().get(0).continuationTokens()).isEqualTo(5);
      assertThat(score.choices().get(1).logLikelihood())
          .isCloseTo(Math.log(0.5) + 2 * Math.log(0.2), within(TOLERANCE));
      assertThat(score.acc()).isEqualTo(0);
      assertThat(score.accNorm()).isEqualTo(1);
    }
  }

  private static void assertPair(
      LookupLm model, LogLikelihoodRequest request, long[] input, long[] continuation) {
    LogLikelihoodScorer.Pair pair = new LogLikelihoodScorer(model, 1).encodePair(0, request);
    assertThat(pair.continuation())
        .as("continuation ids of %s", request)
        .containsExactly(continuation);
    assertThat(pair.input()).as("input ids of %s", request).containsExactly(input);
  }

  private static LogLikelihood score(LookupLm model, LogLikelihoodRequest request) {
    return new LogLikelihoodScorer(model, 1).score(List.of(request)).get(0);
  }

  private static long[] encode(LookupLm model, String text) {
    return TokenIds.encode(model.tokenizer(), text);
  }

  private static LookupLm model(BpeTokenizer tokenizer, int contextLength, NextTokens next) {
    return new LookupLm(
        tokenizer.create(),
        tokenizer.vocabSize(),
        tokenizer.eos(),
        contextLength,
        false,
        history -> next.logProbs(history, tokenizer.vocabSize()));
  }

  private static long[] concat(long[] a, long[] b) {
    long[] out = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }

  /**
   * Next-token probabilities for exact histories (every real token the model has seen): the listed
   * tokens get theirs and the others share what is left; after an unlisted history every token is
   * equally likely. A continuation scored after the wrong history or with the wrong ids gets a
   * different sum.
   */
  private static final class NextTokens {
    private final Map<List<Integer>, Map<Integer, Double>> next = new HashMap<>();

    NextTokens after(long[] history, long token, double probability) {
      List<Integer> key = new ArrayList<>();
      for (long id : history) {
        key.add(Math.toIntExact(id));
      }
      next.computeIfAbsent(key, k -> new HashMap<>()).put(Math.toIntExact(token), probability);
      return this;
    }

    double[] logProbs(List<Integer> history, int vocabSize) {
      Map<Integer, Double> listed = next.getOrDefault(history, Map.of());
      int[] ids = listed.keySet().stream().mapToInt(Integer::intValue).toArray();
      double[] probs = Arrays.stream(ids).mapToDouble(listed::get).toArray();
      return LookupLm.distribution(vocabSize, ids, probs);
    }
  }
}
