package dev.infuse.udfs.lm;

import static dev.infuse.udfs.lm.CharTokenizer.EOS;
import static dev.infuse.udfs.lm.CharTokenizer.id;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * answer.add_bos on the token sequences log-likelihood scoring feeds the model, with a tokenizer
 * whose post-processor puts BOS first (as Llama's does) and one without (as GPT-2's), following
 * lm-evaluation-harness v0.4.9.2's {@code tok_encode}, {@code _encode_pair} and {@code
 * loglikelihood}.
 */
class AddBosTest {
  /** {@code <s>}: the id after the character tokenizer's vocabulary. */
  static final int BOS = CharTokenizer.VOCAB_SIZE;

  /** The character tokenizer plus {@code <s>}, which a TemplateProcessing puts before a text. */
  static String bosJson() {
    String json = CharTokenizer.json();
    String withToken =
        json.replace(
                "\"added_tokens\":[",
                "\"added_tokens\":[{\"id\":"
                    + BOS
                    + ",\"content\":\"<s>\",\"single_word\":false,\"lstrip\":false,"
                    + "\"rstrip\":false,\"normalized\":false,\"special\":true},")
            .replace("\"vocab\":{", "\"vocab\":{\"<s>\":" + BOS + ",");
    String template =
        "{\"type\":\"TemplateProcessing\","
            + "\"single\":[{\"SpecialToken\":{\"id\":\"<s>\",\"type_id\":0}},{\"Sequence\":{\"id\":\"A\",\"type_id\":0}}],"
            + "\"pair\":[{\"SpecialToken\":{\"id\":\"<s>\",\"type_id\":0}},{\"Sequence\":{\"id\":\"A\",\"type_id\":0}},"
            + "{\"Sequence\":{\"id\":\"B\",\"type_id\":1}}],"
            + "\"special_tokens\":{\"<s>\":{\"id\":\"<s>\",\"ids\":["
            + BOS
            + "],\"tokens\":[\"<s>\"]}}}";
    String out = withToken.replace("\"post_processor\":null", "\"post_processor\":" + template);
    if (out.equals(json) || !out.contains("TemplateProcessing")) {
      throw new IllegalStateException("CharTokenizer.json() changed shape; update this fixture");
    }
    return out;
  }

  static HuggingFaceTokenizer bosTokenizer() {
    try {
      return HuggingFaceTokenizer.newInstance(
          new ByteArrayInputStream(bosJson().getBytes(StandardCharsets.UTF_8)),
          TokenIds.UNTRUNCATED);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static LookupLm model(HuggingFaceTokenizer tokenizer, int contextLength) {
    return new LookupLm(
        tokenizer,
        BOS + 1,
        EOS,
        contextLength,
        false,
        history -> LookupLm.distribution(BOS + 1, new int[0], new double[0]));
  }

  private static long[] ids(String text) {
    long[] out = new long[text.length()];
    for (int i = 0; i < text.length(); i++) {
      out[i] = id(text.charAt(i));
    }
    return out;
  }

  private static long[] bos(long[] ids) {
    long[] out = new long[ids.length + 1];
    out[0] = BOS;
    System.arraycopy(ids, 0, out, 1, ids.length);
    return out;
  }

  @Test
  void autoFindsTheBosThatTheTokenizersOwnSpecialTokensPutFirst() {
    try (HuggingFaceTokenizer withBos = bosTokenizer();
        HuggingFaceTokenizer without = CharTokenizer.create()) {
      // The fixture is what it claims: encode(add_special_tokens=True) is [<s>] + the plain ids.
      assertThat(withBos.encode("Q: x", true, false).getIds()).containsExactly(bos(ids("Q: x")));
      assertThat(without.encode("Q: x", true, false).getIds()).containsExactly(ids("Q: x"));

      assertThat(AddBos.AUTO.resolve(withBos)).isEqualTo(BOS);
      assertThat(AddBos.TRUE.resolve(withBos)).isEqualTo(BOS);
      assertThat(AddBos.FALSE.resolve(withBos)).isNull();
      assertThat(AddBos.AUTO.resolve(without)).isNull();
      assertThat(AddBos.FALSE.resolve(without)).isNull();
      assertThatThrownBy(() -> AddBos.TRUE.resolve(without))
          .hasMessageContaining("answer.add_bos: got true")
          .hasMessageContaining("expected auto or false");
    }
  }

  @Test
  void anEncoderTemplateThatAlsoAppendsIsNoBos() {
    // [CLS] $A [SEP], as MiniLM's WordPiece tokenizer (Infuse's default) has it, with <s> as CLS
    // and <eos> as SEP.
    String bert =
        bosJson()
            .replace(
                "{\"Sequence\":{\"id\":\"A\",\"type_id\":0}}],\"pair\"",
                "{\"Sequence\":{\"id\":\"A\",\"type_id\":0}},"
                    + "{\"SpecialToken\":{\"id\":\"<eos>\",\"type_id\":0}}],\"pair\"")
            .replace(
                "\"special_tokens\":{",
                "\"special_tokens\":{\"<eos>\":{\"id\":\"<eos>\",\"ids\":[0],\"tokens\":[\"<eos>\"]},");
    try (HuggingFaceTokenizer t =
        HuggingFaceTokenizer.newInstance(
            new ByteArrayInputStream(bert.getBytes(StandardCharsets.UTF_8)),
            TokenIds.UNTRUNCATED)) {
      long[] special = t.encode("ab", true, false).getIds();
      assertThat(special).containsExactly(BOS, id('a'), id('b'), EOS);
      assertThat(AddBos.AUTO.resolve(t)).isNull();
      assertThatThrownBy(() -> AddBos.TRUE.resolve(t)).hasMessageContaining("has no BOS");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Test
  void resolvesFromAModelDirectorysTokenizerJson() throws IOException {
    Path dir = Files.createTempDirectory("add-bos");
    Path file = dir.resolve(ModelDirectory.TOKENIZER);
    Files.writeString(file, bosJson());
    assertThat(AddBos.AUTO.resolve(file)).isEqualTo(BOS);
    Files.writeString(file, CharTokenizer.json());
    assertThat(AddBos.AUTO.resolve(file)).isNull();
  }

  @Test
  void withBosTheContextGainsItAndTheContinuationTokensStayTheSame() {
    try (LookupLm m = model(bosTokenizer(), 64)) {
      LogLikelihoodRequest request = new LogLikelihoodRequest("Q:", " x");
      LogLikelihoodScorer.Pair plain = new LogLikelihoodScorer(m, 4).encodePair(0, request);
      LogLikelihoodScorer.Pair withBos =
          new LogLikelihoodScorer(m, 4, AddBos.AUTO.resolve(m.tokenizer())).encodePair(0, request);

      // Input is (context + continuation)[:-1]; continuation is scored after the context.
      assertThat(plain.input()).containsExactly(ids("Q: "));
      assertThat(plain.continuation()).containsExactly(ids(" x"));
      assertThat(withBos.input()).containsExactly(bos(ids("Q: ")));
      assertThat(withBos.continuation()).containsExactly(ids(" x"));

      // A context that already starts with BOS text does not get a second one.
      LogLikelihoodScorer.Pair already =
          new LogLikelihoodScorer(m, 4, BOS).encodePair(0, new LogLikelihoodRequest("<s>Q:", " x"));
      assertThat(already.input()).containsExactly(bos(ids("Q: ")));
    }
  }

  @Test
  void anEmptyContextIsBosWithBosAndEosWithout() {
    try (LookupLm m = model(bosTokenizer(), 64)) {
      LogLikelihoodScorer withBos = new LogLikelihoodScorer(m, 4, BOS);
      LogLikelihoodScorer.Pair empty = withBos.encodePair(0, new LogLikelihoodRequest("", "ab"));
      assertThat(empty.input()).containsExactly(bos(ids("a")));
      assertThat(empty.continuation()).containsExactly(ids("ab"));
      // A continuation that starts with BOS gives it to the context rather than scoring it.
      LogLikelihoodScorer.Pair reused =
          withBos.encodePair(0, new LogLikelihoodRequest("", "<s>ab"));
      assertThat(reused.input()).containsExactly(bos(ids("a")));
      assertThat(reused.continuation()).containsExactly(ids("ab"));

      LogLikelihoodScorer.Pair eos =
          new LogLikelihoodScorer(m, 4).encodePair(0, new LogLikelihoodRequest("", "ab"));
      assertThat(eos.input()).containsExactly(EOS, id('a'));
    }
  }

  @Test
  void aTokenizerWithoutBosScoresTheSameTokensUnderAutoAsBefore() {
    try (LookupLm m = model(CharTokenizer.create(), 64)) {
      LogLikelihoodRequest request = new LogLikelihoodRequest("Q:", " x");
      LogLikelihoodScorer.Pair before = new LogLikelihoodScorer(m, 4).encodePair(0, request);
      LogLikelihoodScorer.Pair auto =
          new LogLikelihoodScorer(m, 4, AddBos.AUTO.resolve(m.tokenizer())).encodePair(0, request);
      assertThat(auto.input()).containsExactly(before.input());
      assertThat(auto.continuation()).containsExactly(before.continuation());
    }
  }

  @Test
  void aLongContextLosesItsBosToLeftTruncationAsTheHarnessDoes() {
    // Context length 3: (BOS Q : ' ' x)[-4:][:-1] = Q : ' '.
    try (LookupLm m = model(bosTokenizer(), 3)) {
      LogLikelihoodScorer.Pair p =
          new LogLikelihoodScorer(m, 4, BOS).encodePair(0, new LogLikelihoodRequest("Q:", " x"));
      assertThat(p.input()).containsExactly(ids("Q: "));
      assertThat(p.continuation()).containsExactly(ids(" x"));
    }
  }

  @Test
  void aBosOutsideTheVocabularyIsRefused() {
    try (LookupLm m = model(CharTokenizer.create(), 64)) {
      assertThatThrownBy(() -> new LogLikelihoodScorer(m, 4, BOS + 1))
          .hasMessageContaining("BOS token id: got " + (BOS + 1))
          .hasMessageContaining("expected 0.." + BOS);
      assertThat(Arrays.asList(AddBos.values())).hasSize(3);
    }
  }
}
