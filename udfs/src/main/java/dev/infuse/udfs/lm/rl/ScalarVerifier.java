package dev.infuse.udfs.lm.rl;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.NDScope;
import ai.djl.nn.Activation;
import ai.djl.pytorch.jni.JniUtils;
import dev.infuse.udfs.lm.AtomicDirectory;
import dev.infuse.udfs.lm.DecoderLm;
import dev.infuse.udfs.lm.LmConfig;
import dev.infuse.udfs.lm.LmJson;
import dev.infuse.udfs.lm.ModelDirectory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * MAPoRL's model verifier ({@code utils/reward_model.py}): a causal LM backbone, a linear head on
 * its final hidden states with no bias, and a sigmoid, so every position gets a score in (0, 1);
 * the score of a response is the one at its last token. Trained by {@link VerifierTrainer}.
 *
 * <p>The backbone is a {@link DecoderLm} and the head a bias-free {@link ValueHead}. The reference
 * reads {@code hidden_states[-1]} of a HuggingFace model, which for Llama/Phi/Qwen is after the
 * final norm, as here.
 *
 * <p>Saved as a directory: the backbone as a normal model directory (config.json,
 * model.safetensors, tokenizer.json), {@value #HEAD}, and {@value #MARKER} marking it a verifier.
 */
public final class ScalarVerifier implements AutoCloseable {
  public static final String HEAD = "verifier_head.safetensors";
  public static final String MARKER = "verifier.json";
  public static final String KIND = "scalar-verifier";

  /** The contents of {@value #MARKER}. */
  public record Marker(String kind, int format, String head) {}

  private final DecoderLm backbone;
  private final ValueHead head;

  private ScalarVerifier(DecoderLm backbone, ValueHead head) {
    if (head.dModel() != backbone.config().dModel()) {
      throw new IllegalArgumentException(
          "head: d_model "
              + head.dModel()
              + ", expected the backbone's "
              + backbone.config().dModel());
    }
    this.backbone = backbone;
    this.head = head;
  }

  /** A fresh backbone and head from {@code seed}. */
  public static ScalarVerifier create(
      LmConfig config, byte[] tokenizerJson, Device device, long seed) {
    DecoderLm backbone = DecoderLm.create(config, tokenizerJson, device, seed);
    return new ScalarVerifier(backbone, ValueHead.create(config.dModel(), false, device, seed));
  }

  /**
   * A verifier on an existing model (the reference starts from the SFT policy) with a fresh head;
   * it takes ownership of {@code backbone}.
   */
  public static ScalarVerifier fromBackbone(DecoderLm backbone, long seed) {
    return new ScalarVerifier(
        backbone, ValueHead.create(backbone.config().dModel(), false, backbone.device(), seed));
  }

  public DecoderLm backbone() {
    return backbone;
  }

  public ValueHead head() {
    return head;
  }

  /** {@code sigmoid(head(hidden))} at the last response token. */
  public double score(int[] promptIds, int[] responseIds) {
    return scores(List.of(promptIds), List.of(responseIds))[0];
  }

  /** {@link #score} for many pairs at once, in one batch. */
  public double[] scores(List<int[]> prompts, List<int[]> responses) {
    List<String> problems = new ArrayList<>();
    for (int i = 0; i < prompts.size(); i++) {
      problems.addAll(problems("pair " + i, prompts.get(i), responses.get(i)));
    }
    if (!problems.isEmpty()) {
      throw new IllegalArgumentException("verifier: " + String.join("; ", problems));
    }
    boolean recording = JniUtils.isGradMode();
    JniUtils.setGradMode(false);
    try (NDManager manager = NDManager.newBaseManager(backbone.device(), "PyTorch");
        NDScope scope = new NDScope()) {
      SequenceBatch batch =
          new SequenceBatch(prompts, responses, backbone.config().padTokenId(), manager);
      double[][] perToken = batch.extract(tokenScores(batch), SequenceBatch.AT_TOKEN);
      double[] out = new double[perToken.length];
      for (int i = 0; i < out.length; i++) {
        out[i] = perToken[i][perToken[i].length - 1];
      }
      return out;
    } finally {
      JniUtils.setGradMode(recording);
    }
  }

  /** Pre-sigmoid scores [B, T] at every position; records gradients in a collector. */
  NDArray tokenLogits(SequenceBatch batch) {
    NDArray[] out =
        backbone.forwardTrainingWithHidden(batch.tokens, batch.positions, batch.attention);
    return head.forward(out[1]);
  }

  /** Scores in (0, 1), [B, T]. */
  NDArray tokenScores(SequenceBatch batch) {
    return Activation.sigmoid(tokenLogits(batch));
  }

  /** Problems with one pair, each prefixed by {@code name}; empty when it can be scored. */
  List<String> problems(String name, int[] promptIds, int[] responseIds) {
    LmConfig config = backbone.config();
    List<String> problems = new ArrayList<>();
    if (responseIds == null || responseIds.length == 0) {
      problems.add(name + ": empty response, expected at least one token");
      return problems;
    }
    int length = promptIds.length + responseIds.length;
    if (length > config.contextLength()) {
      problems.add(
          name
              + ": "
              + length
              + " tokens, expected at most context_length "
              + config.contextLength());
    }
    for (int[] ids : new int[][] {promptIds, responseIds}) {
      for (int id : ids) {
        if (id < 0 || id >= config.vocabSize()) {
          problems.add(name + ": token id " + id + ", expected 0.." + (config.vocabSize() - 1));
          return problems;
        }
      }
    }
    return problems;
  }

  /** Writes the verifier to {@code dir} atomically, replacing whatever was there. */
  public void save(Path dir) {
    AtomicDirectory.write(
        dir,
        temp -> {
          ModelDirectory.writeFiles(backbone, temp);
          head.save(temp.resolve(HEAD));
          LmJson.MAPPER.writeValue(temp.resolve(MARKER).toFile(), new Marker(KIND, 1, HEAD));
        });
  }

  /** Whether {@code dir} holds a verifier (has its marker). */
  public static boolean isVerifier(Path dir) {
    return Files.isRegularFile(dir.resolve(MARKER));
  }

  /** Loads a verifier written by {@link #save}. */
  public static ScalarVerifier load(Path dir, Device device) {
    Marker marker;
    try {
      marker = LmJson.MAPPER.readValue(dir.resolve(MARKER).toFile(), Marker.class);
    } catch (IOException e) {
      throw new IllegalArgumentException(
          dir.toAbsolutePath()
              + ": not a verifier directory (no readable "
              + MARKER
              + "): "
              + e.getMessage(),
          e);
    }
    if (!KIND.equals(marker.kind())) {
      throw new IllegalArgumentException(
          dir.resolve(MARKER).toAbsolutePath() + ": kind " + marker.kind() + ", expected " + KIND);
    }
    DecoderLm backbone = ModelDirectory.loadDecoder(dir, device);
    try {
      return new ScalarVerifier(backbone, ValueHead.load(dir.resolve(marker.head()), device));
    } catch (RuntimeException e) {
      backbone.close();
      throw e;
    }
  }

  @Override
  public void close() {
    head.close();
    backbone.close();
  }
}
