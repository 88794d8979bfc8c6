package dev.infuse.udfs.lm;

import static dev.infuse.udfs.lm.CharTokenizer.VOCAB_SIZE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import ai.djl.Device;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TorchScriptLmTest {
  @TempDir Path dir;

  private void writeModelDirectory(String config) throws IOException {
    TorchScriptArchive.writeOneHotNext(dir.resolve("model.pt"), VOCAB_SIZE);
    Files.writeString(dir.resolve("config.json"), config, StandardCharsets.UTF_8);
    Files.writeString(dir.resolve("tokenizer.json"), CharTokenizer.json(), StandardCharsets.UTF_8);
  }

  private static String config(String architecture, int vocab) {
    return "{\"architecture\": \""
        + architecture
        + "\", \"vocab_size\": "
        + vocab
        + ", \"context_length\": 32,"
        + " \"eos_token_id\": 0, \"pad_token_id\": 0, \"some_extra_field\": true}";
  }

  @Test
  void aHandBuiltTorchScriptExportGeneratesAndScoresThroughTheEngine() throws IOException {
    writeModelDirectory(config("torchscript", VOCAB_SIZE));
    try (CausalLm model = TorchScriptLm.load(dir, Device.cpu())) {
      assertThat(model.supportsKvCache()).isFalse();
      assertThat(model.config().contextLength()).isEqualTo(32);

      // Left-padded batch of two prompt lengths: each row continues with the next ids.
      List<GeneratedText> out =
          new Generator(model, 4).generate(List.of("a", "klm"), GenerationOptions.greedy(3));
      assertThat(out)
          .containsExactly(
              new GeneratedText("bcd", "length", 1, 3), new GeneratedText("nop", "length", 3, 3));

      // Past DJL's default 512-token truncation: the prompt keeps its last 32 - 3 tokens.
      GeneratedText longPrompt =
          new Generator(model, 1)
              .generate(List.of("a".repeat(600) + "k"), GenerationOptions.greedy(3))
              .get(0);
      assertThat(longPrompt).isEqualTo(new GeneratedText("lmn", "length", 29, 3));

      LogLikelihood ll =
          new LogLikelihoodScorer(model, 4)
              .score(
                  List.of(new LogLikelihoodRequest("ab", "cd"), new LogLikelihoodRequest("x", "z")))
              .get(0);
      double perToken = 1 - Math.log(Math.E + VOCAB_SIZE - 1);
      assertThat(ll.logLikelihood()).isCloseTo(2 * perToken, within(1e-5));
      assertThat(ll.isGreedy()).isTrue();
    }
  }

  @Test
  void aMissingFileIsNamed() throws IOException {
    writeModelDirectory(config("torchscript", VOCAB_SIZE));
    Files.delete(dir.resolve("tokenizer.json"));

    assertThatThrownBy(() -> TorchScriptLm.load(dir, Device.cpu()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(
            "no tokenizer.json, expected model.pt, config.json and tokenizer.json");
  }

  @Test
  void aConfigForAnotherArchitectureOrWithBadIdsIsRejected() throws IOException {
    writeModelDirectory(config("infuse-decoder", VOCAB_SIZE));
    assertThatThrownBy(() -> TorchScriptLm.load(dir, Device.cpu()))
        .hasMessageContaining("architecture: got infuse-decoder, expected torchscript");

    Files.writeString(
        dir.resolve("config.json"), "{\"architecture\": \"torchscript\", \"vocab_size\": 0}");
    assertThatThrownBy(() -> TorchScriptLm.load(dir, Device.cpu()))
        .hasMessageContaining("vocab_size: got 0, expected a positive integer")
        .hasMessageContaining("context_length: got 0");

    Files.writeString(dir.resolve("config.json"), "{not json");
    assertThatThrownBy(() -> TorchScriptLm.load(dir, Device.cpu()))
        .hasMessageContaining("not a model config");
  }

  @Test
  void aFileThatIsNotTorchScriptFailsNamingIt() throws IOException {
    writeModelDirectory(config("torchscript", VOCAB_SIZE));
    Files.writeString(dir.resolve("model.pt"), "not a zip");

    assertThatThrownBy(() -> TorchScriptLm.load(dir, Device.cpu()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("cannot load model.pt");
  }

  @Test
  void logitsOfTheWrongVocabularySizeAreReported() throws IOException {
    writeModelDirectory(config("torchscript", VOCAB_SIZE + 3));
    try (CausalLm model = TorchScriptLm.load(dir, Device.cpu())) {
      assertThatThrownBy(
              () -> new Generator(model, 1).generate(List.of("a"), GenerationOptions.greedy(1)))
          .hasMessageContaining("expected (1, 1, " + (VOCAB_SIZE + 3) + ") ([B, T, vocab_size])");
    }
  }
}
