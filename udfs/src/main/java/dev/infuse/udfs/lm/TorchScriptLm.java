package dev.infuse.udfs.lm;

import ai.djl.Device;
import ai.djl.MalformedModelException;
import ai.djl.Model;
import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Block;
import ai.djl.training.ParameterStore;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * A decoder-only model exported to TorchScript (for example from Hugging Face transformers), run
 * through DJL's PyTorch engine.
 *
 * <p><b>Export contract.</b> A model directory holds:
 *
 * <ul>
 *   <li>{@code model.pt}: a TorchScript module (saved by {@code torch.jit.save}) whose {@code
 *       forward(input_ids: Tensor, attention_mask: Tensor) -> Tensor} takes int64 {@code [B, T]}
 *       token ids and an int64 {@code [B, T]} mask (1 for real tokens, 0 for padding) and returns
 *       float logits {@code [B, T, V]} for the next token at every position. It returns the logits
 *       tensor itself, not a tuple or dict.
 *   <li>{@code config.json}: an {@link LmConfig} in snake_case with {@code "architecture":
 *       "torchscript"}, {@code vocab_size} = V, {@code context_length}, {@code eos_token_id} and
 *       {@code pad_token_id}; the transformer sizes are not needed.
 *   <li>{@code tokenizer.json}: the model's Hugging Face tokenizer.
 * </ul>
 *
 * <p><b>Positions.</b> Infuse left-pads batches, so the module must derive positions from the mask,
 * not from the column index: {@code position_ids = (attention_mask.cumsum(-1) - 1).clamp(min=0)}
 * (what transformers' {@code generate} does), so every row's first real token is position 0. The
 * positions {@link #forward} is given are therefore not passed on.
 *
 * <p>There is no KV cache ({@link #supportsKvCache()} is false): generation feeds the whole
 * sequence every step, which is correct for any export but costs quadratic time in the output
 * length.
 *
 * <p>A sketch of an export from transformers:
 *
 * <pre>{@code
 * class Wrapper(torch.nn.Module):
 *     def __init__(self, hf):
 *         super().__init__(); self.hf = hf
 *     def forward(self, input_ids, attention_mask):
 *         position_ids = (attention_mask.cumsum(-1) - 1).clamp(min=0)
 *         return self.hf(input_ids=input_ids, attention_mask=attention_mask,
 *                        position_ids=position_ids, use_cache=False).logits
 * traced = torch.jit.trace(Wrapper(model).eval(), (ids, mask), strict=False)
 * torch.jit.save(traced, "model.pt")
 * }</pre>
 */
public final class TorchScriptLm implements CausalLm {
  static final String MODEL_FILE = "model.pt";
  static final String CONFIG_FILE = "config.json";
  static final String TOKENIZER_FILE = "tokenizer.json";

  private final Model model;
  private final Block block;
  private final LmConfig config;
  private final HuggingFaceTokenizer tokenizer;

  private TorchScriptLm(Model model, LmConfig config, HuggingFaceTokenizer tokenizer) {
    this.model = model;
    this.block = model.getBlock();
    this.config = config;
    this.tokenizer = tokenizer;
  }

  /**
   * Loads the export in {@code dir} onto {@code device}. Missing files, a config that is not a
   * valid {@code torchscript} config, and a module TorchScript cannot load fail with the file
   * named.
   */
  public static CausalLm load(Path dir, Device device) {
    for (String file : List.of(MODEL_FILE, CONFIG_FILE, TOKENIZER_FILE)) {
      if (!Files.isRegularFile(dir.resolve(file))) {
        throw new IllegalArgumentException(
            "torchscript model "
                + dir
                + ": no "
                + file
                + ", expected "
                + MODEL_FILE
                + ", "
                + CONFIG_FILE
                + " and "
                + TOKENIZER_FILE);
      }
    }
    LmConfig config = readConfig(dir.resolve(CONFIG_FILE));
    HuggingFaceTokenizer tokenizer;
    try (InputStream in = Files.newInputStream(dir.resolve(TOKENIZER_FILE))) {
      tokenizer = HuggingFaceTokenizer.newInstance(in, TokenIds.UNTRUNCATED);
    } catch (IOException e) {
      throw new UncheckedIOException(
          "torchscript model " + dir + ": cannot read " + TOKENIZER_FILE, e);
    } catch (RuntimeException e) {
      throw new IllegalArgumentException(
          "torchscript model "
              + dir
              + ": "
              + TOKENIZER_FILE
              + " is not a tokenizer: "
              + e.getMessage(),
          e);
    }
    Model model = Model.newInstance("torchscript-lm", device, Generator.ENGINE);
    try {
      // mapLocation: weights saved from a GPU load onto whatever device was asked for.
      model.load(dir, "model", Map.of("mapLocation", "true"));
    } catch (IOException | MalformedModelException | RuntimeException e) {
      model.close();
      tokenizer.close();
      throw new IllegalArgumentException(
          "torchscript model " + dir + ": cannot load " + MODEL_FILE + ": " + e.getMessage(), e);
    }
    return new TorchScriptLm(model, config, tokenizer);
  }

  private static LmConfig readConfig(Path file) {
    LmConfig config;
    try {
      config =
          new ObjectMapper()
              .setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
              .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false)
              .readValue(file.toFile(), LmConfig.class);
    } catch (IOException e) {
      throw new IllegalArgumentException(file + ": not a model config: " + e.getMessage(), e);
    }
    List<String> problems = config.problems();
    if (!LmConfig.TORCHSCRIPT.equals(config.architecture())) {
      problems = new java.util.ArrayList<>(problems);
      problems.add(
          0, "architecture: got " + config.architecture() + ", expected " + LmConfig.TORCHSCRIPT);
    }
    if (!problems.isEmpty()) {
      throw new IllegalArgumentException(file + ": " + String.join("; ", problems));
    }
    return config;
  }

  @Override
  public LmConfig config() {
    return config;
  }

  @Override
  public HuggingFaceTokenizer tokenizer() {
    return tokenizer;
  }

  @Override
  public Device device() {
    return model.getNDManager().getDevice();
  }

  @Override
  public boolean supportsKvCache() {
    return false;
  }

  @Override
  public KvCache newCache(NDManager manager, int batchSize) {
    throw new UnsupportedOperationException(
        "a TorchScript export has no KV cache; feed the whole sequence with a null cache");
  }

  /**
   * Runs the module on {@code tokens} and {@code keyMask}; {@code positions} are the module's to
   * derive (see above).
   */
  @Override
  public NDArray forward(NDArray tokens, NDArray positions, NDArray keyMask, KvCache cache) {
    if (cache != null) {
      throw new IllegalArgumentException("a TorchScript export has no KV cache; pass a null cache");
    }
    if (!keyMask.getShape().equals(tokens.getShape())) {
      throw new IllegalArgumentException(
          "key mask shape "
              + keyMask.getShape()
              + ", expected the tokens' shape "
              + tokens.getShape());
    }
    NDManager manager = tokens.getManager();
    NDList inputs =
        new NDList(tokens.toType(DataType.INT64, false), keyMask.toType(DataType.INT64, false));
    NDList outputs = block.forward(new ParameterStore(manager, false), inputs, false);
    NDArray logits = outputs.singletonOrThrow();
    Shape shape = logits.getShape();
    Shape expected =
        new Shape(tokens.getShape().get(0), tokens.getShape().get(1), config.vocabSize());
    if (!shape.equals(expected)) {
      throw new IllegalStateException(
          "torchscript forward returned logits of shape "
              + shape
              + ", expected "
              + expected
              + " ([B, T, vocab_size])");
    }
    logits.attach(manager);
    return logits.getDataType() == DataType.FLOAT32
        ? logits
        : logits.toType(DataType.FLOAT32, false);
  }

  @Override
  public void close() {
    model.close();
    tokenizer.close();
  }
}
