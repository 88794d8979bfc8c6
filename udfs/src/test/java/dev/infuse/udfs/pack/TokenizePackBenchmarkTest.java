package dev.infuse.udfs.pack;

import ai.djl.huggingface.tokenizers.Encoding;
import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import dev.infuse.udfs.bench.BenchResult;
import dev.infuse.udfs.bench.BenchResults;
import dev.infuse.udfs.bench.BenchSizes;
import dev.infuse.udfs.text.HuggingFaceTextTokenizer;
import dev.infuse.udfs.text.TextTokenizer;
import dev.infuse.udfs.text.Tokenizers;
import java.io.ByteArrayInputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Tokenize + pack through Infuse's units (TextTokenizer.ids over batches of 512, TokenPacker)
 * against a raw HuggingFace batch encode of the same texts in the same JVM. Prints and records the
 * ratio (goal ≥ 0.80), never gates. Run: {@code bin/infuse bench --only TokenizePackBenchmarkTest},
 * or {@code mvn -o -B -pl udfs test -Dinfuse.excludedGroups= -Dgroups=benchmark
 * -Dtest=TokenizePackBenchmarkTest}; {@code -Dbench.packTexts} (default 20000) sets the size.
 */
@Tag("benchmark")
class TokenizePackBenchmarkTest {
  private static final int TEXTS = BenchSizes.size("bench.packTexts", 20_000, 100_000);

  @Test
  void tokenizeAndPackAgainstRawBatchEncode() throws Exception {
    List<String> texts = texts(TEXTS);
    TextTokenizer ours = Tokenizers.defaultTokenizer();
    HuggingFaceTokenizer raw =
        HuggingFaceTokenizer.newInstance(
            new ByteArrayInputStream(Tokenizers.defaultTokenizerJson()),
            HuggingFaceTextTokenizer.RAW_OPTIONS);
    double[] oursRates = new double[5];
    double[] rawRates = new double[5];
    long tokens = 0;
    for (int round = -1; round < 5; round++) {
      long started = System.nanoTime();
      List<TokenizedText> tokenized = new ArrayList<>(texts.size());
      // In batches of 512, as build-shards' TrainingTextRows encodes a partition.
      for (int from = 0; from < texts.size(); from += 512) {
        int[][] ids = ours.ids(texts.subList(from, Math.min(texts.size(), from + 512)));
        for (int i = 0; i < ids.length; i++) {
          tokenized.add(new TokenizedText("documents", Integer.toString(from + i), ids[i], null));
        }
      }
      int sequences = new TokenPacker(1024, 102, 0).pack(tokenized).size();
      double oursSeconds = (System.nanoTime() - started) / 1e9;

      started = System.nanoTime();
      long rawTokens = 0;
      for (int from = 0; from < texts.size(); from += 1000) {
        for (Encoding encoding :
            raw.batchEncode(
                texts.subList(from, Math.min(texts.size(), from + 1000)), false, false)) {
          rawTokens += encoding.getIds().length;
        }
      }
      double rawSeconds = (System.nanoTime() - started) / 1e9;
      if (round >= 0) {
        oursRates[round] = texts.size() / oursSeconds;
        rawRates[round] = texts.size() / rawSeconds;
        tokens = rawTokens;
      }
      if (sequences == 0) {
        throw new IllegalStateException("nothing packed");
      }
    }
    Arrays.sort(oursRates);
    Arrays.sort(rawRates);
    System.out.printf(
        Locale.ROOT,
        "tokenize + pack, %d texts, %d tokens, %d cores: Infuse %.0f texts/s, raw batchEncode"
            + " %.0f texts/s (medians of 5), ratio %.2f%n",
        texts.size(),
        tokens,
        Runtime.getRuntime().availableProcessors(),
        oursRates[2],
        rawRates[2],
        oursRates[2] / rawRates[2]);
    BenchResults.record(
        new BenchResult(
            String.format(Locale.ROOT, "tokenize + pack (units), %,d texts", texts.size()),
            String.format(Locale.ROOT, "%,.0f texts/s", oursRates[2]),
            String.format(Locale.ROOT, "raw HF batchEncode %,.0f texts/s", rawRates[2]),
            oursRates[2] / rawRates[2],
            "ratio",
            true,
            0.80,
            String.format(
                Locale.ROOT,
                "medians of 5 rounds, %d tokens, %d cores",
                tokens,
                Runtime.getRuntime().availableProcessors())));
  }

  private static List<String> texts(int count) {
    SplittableRandom random = new SplittableRandom(1);
    String[] words =
        "the of and a to in is was that for it with as his on be at by had are but from or have an they which one were you her all she there would their we him been has when who will more no if out so said what up its about into than them can only other new some could time these two may then do first any my now such like our over man me even most made after also did many before must through back years where much your way well down should because each just those people how too little state good very make world still own see men work long get here between both life being under never day same another know while last might us great old year off come since against go came right used take three"
            .split(" ");
    List<String> texts = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      StringBuilder text = new StringBuilder();
      int length = 50 + random.nextInt(250);
      for (int w = 0; w < length; w++) {
        text.append(w == 0 ? "" : " ").append(words[random.nextInt(words.length)]);
      }
      texts.add(text.append('.').toString());
    }
    return texts;
  }
}
