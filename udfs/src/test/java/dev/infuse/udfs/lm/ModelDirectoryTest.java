package dev.infuse.udfs.lm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import com.fasterxml.jackson.databind.JsonNode;
import dev.infuse.udfs.model.ExecutorModels;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ModelDirectoryTest {
  @TempDir Path temp;

  @Test
  void saveThenLoadGivesIdenticalLogits() throws IOException {
    Path dir = temp.resolve("model");
    long[] tokens = {2023, 2003, 1037, 3231, 1012};
    try (DecoderLm model = TinyLms.create(3);
        NDManager manager = NDManager.newBaseManager("PyTorch")) {
      ModelDirectory.save(model, dir);
      try (CausalLm loaded = ModelDirectory.load(dir, Device.cpu())) {
        assertThat(loaded.config()).isEqualTo(model.config());
        assertThat(DecoderLmTest.alone(loaded, manager, tokens).toFloatArray())
            .containsExactly(DecoderLmTest.alone(model, manager, tokens).toFloatArray());
        assertThat(loaded.tokenizer().encode("hello world").getIds()).containsExactly(7592, 2088);
      }
    }
    try (Stream<Path> files = Files.list(temp)) {
      assertThat(files.map(p -> p.getFileName().toString())).containsExactly("model");
    }
    assertThat(Files.readAllBytes(dir.resolve(ModelDirectory.TOKENIZER)))
        .isEqualTo(TinyLms.tokenizerJson());
    JsonNode config = LmJson.MAPPER.readTree(dir.resolve(ModelDirectory.CONFIG).toFile());
    assertThat(config.get("d_model").asInt()).isEqualTo(32);
    assertThat(config.get("eos_token_id").asInt()).isEqualTo(TinyLms.EOS);
    try (NDManager manager = NDManager.newBaseManager("PyTorch")) {
      assertThat(
              ModelDirectory.readTensors(dir.resolve(ModelDirectory.WEIGHTS), manager).stream()
                  .map(NDArray::getName))
          .contains(
              "token_embedding.embedding",
              "layers.1.qkv.weight",
              "layers.0.mlp_norm.gamma",
              "final_norm.beta");
    }
  }

  @Test
  void savingOverAModelReplacesIt() {
    Path dir = temp.resolve("model");
    try (DecoderLm first = TinyLms.create(1);
        DecoderLm second = TinyLms.create(2);
        NDManager manager = NDManager.newBaseManager("PyTorch")) {
      ModelDirectory.save(first, dir);
      ModelDirectory.save(second, dir);
      try (CausalLm loaded = ModelDirectory.load(dir, Device.cpu())) {
        long[] tokens = {2023, 2003};
        assertThat(DecoderLmTest.alone(loaded, manager, tokens).toFloatArray())
            .containsExactly(DecoderLmTest.alone(second, manager, tokens).toFloatArray());
      }
    }
  }

  @Test
  void badDirectoriesGiveClearErrors() throws IOException {
    assertThatThrownBy(() -> ModelDirectory.load(temp, Device.cpu()))
        .hasMessageContaining("no file " + temp.resolve("config.json").toAbsolutePath());
    Files.writeString(
        temp.resolve("config.json"), "{\"architecture\": \"infuse-decoder\", \"vocab_size\": 10}");
    assertThatThrownBy(() -> ModelDirectory.load(temp, Device.cpu()))
        .hasMessageContaining("layers");
    Files.writeString(
        temp.resolve("config.json"),
        """
        {"architecture": "gpt9", "vocab_size": 10, "layers": 1, "d_model": 4, "heads": 2, "context_length": 8,
         "ffn_multiplier": 4, "eos_token_id": 1, "pad_token_id": 0}""");
    assertThatThrownBy(() -> ModelDirectory.load(temp, Device.cpu()))
        .hasMessageContaining("architecture: got gpt9, expected infuse-decoder or torchscript");
  }

  @Test
  void torchScriptArchitectureGoesToTheTorchScriptLoader() throws IOException {
    Files.writeString(
        temp.resolve("config.json"),
        """
        {"architecture": "torchscript", "vocab_size": 10, "layers": 0, "d_model": 0, "heads": 0,
         "context_length": 8, "ffn_multiplier": 0, "eos_token_id": 1, "pad_token_id": 0}""");
    assertThatThrownBy(() -> ModelDirectory.load(temp, Device.cpu()))
        .hasMessageContaining("model.pt");
  }

  @Test
  void modelSpecLoadsOncePerKeyAndChecksTheDeviceOption() {
    Path dir = temp.resolve("spec-model");
    try (DecoderLm model = TinyLms.create(4)) {
      ModelDirectory.save(model, dir);
    }
    LmModelSpec spec = new LmModelSpec(dir.toString(), "CPU");
    assertThat(spec.cacheKey()).isEqualTo("causal-lm:" + dir.toAbsolutePath() + "@cpu");
    try {
      CausalLm first = ExecutorModels.get(spec);
      assertThat(ExecutorModels.get(new LmModelSpec(dir.toString(), "cpu"))).isSameAs(first);
      assertThat(ExecutorModels.loadCount(spec.cacheKey())).isEqualTo(1);
    } finally {
      ExecutorModels.evict(spec.cacheKey());
    }
    assertThatThrownBy(() -> new LmModelSpec(dir.toString(), "tpu"))
        .hasMessageContaining("expected auto, cpu");
  }
}
