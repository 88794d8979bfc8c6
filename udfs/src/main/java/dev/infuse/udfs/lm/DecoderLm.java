package dev.infuse.udfs.lm;

import ai.djl.Device;
import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.NDScope;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.ndarray.types.SparseFormat;
import ai.djl.nn.AbstractBlock;
import ai.djl.nn.Activation;
import ai.djl.nn.Parameter;
import ai.djl.nn.core.Embedding;
import ai.djl.nn.core.Linear;
import ai.djl.nn.norm.LayerNorm;
import ai.djl.nn.transformer.IdEmbedding;
import ai.djl.training.ParameterStore;
import ai.djl.util.Pair;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Infuse's own GPT-style decoder-only transformer, built from DJL blocks: token and learned
 * position embeddings, pre-LayerNorm blocks of causal multi-head self-attention and a GELU MLP, a
 * final LayerNorm, and an LM head tied to the token embedding (GPT-2's choice: it halves the
 * parameters of a model whose vocabulary dwarfs its width). No dropout: the models trained here are
 * small demos.
 *
 * <p>DJL has no decoder block and no KV cache, so attention is written from NDArray ops. Parameters
 * are named by path ({@code layers.0.qkv.weight}); those names key {@code model.safetensors}.
 */
public final class DecoderLm implements CausalLm {
  /**
   * Added to the score of a masked key: exp() of it is exactly 0 in float32, and unlike -inf a row
   * with every key masked (a pad query) gives a harmless uniform average instead of NaN.
   */
  private static final float MASKED_SCORE = -1e9f;

  private static final double INIT_STD = 0.02;

  private final LmConfig config;
  private final byte[] tokenizerJson;
  private final HuggingFaceTokenizer tokenizer;
  private final NDManager manager;
  private final List<Layer> layers = new ArrayList<>();
  private final LayerNorm finalNorm;
  private final Map<String, Parameter> parameters = new LinkedHashMap<>();

  /** One pre-LayerNorm transformer block. */
  private record Layer(
      LayerNorm attentionNorm,
      Linear qkv,
      Linear attentionOut,
      LayerNorm mlpNorm,
      Linear mlpIn,
      Linear mlpOut) {}

  private DecoderLm(LmConfig config, byte[] tokenizerJson, Device device, long seed) {
    this.config = config;
    this.tokenizerJson = tokenizerJson.clone();
    try {
      this.tokenizer =
          HuggingFaceTokenizer.newInstance(
              new ByteArrayInputStream(tokenizerJson), TokenIds.UNTRUNCATED);
    } catch (IOException e) {
      throw new UncheckedIOException("tokenizer.json: cannot parse", e);
    }
    this.manager = NDManager.newBaseManager(device, "PyTorch");
    int width = config.dModel();
    // GPT-2: residual projections start smaller so the residual stream's variance does not grow
    // with depth.
    double residualStd = INIT_STD / Math.sqrt(2.0 * config.layers());
    // The embedding blocks own their tables; run() looks rows up with torch.embedding directly.
    add("token_embedding", embedding(config.vocabSize()), INIT_STD, seed, new Shape(1, 1));
    add("position_embedding", embedding(config.contextLength()), INIT_STD, seed, new Shape(1, 1));
    Shape tokens = new Shape(1, 1, width);
    for (int i = 0; i < config.layers(); i++) {
      String path = "layers." + i + ".";
      layers.add(
          new Layer(
              add(path + "attention_norm", layerNorm(), INIT_STD, seed, tokens),
              add(path + "qkv", linear(3L * width), INIT_STD, seed, tokens),
              add(path + "attention_out", linear(width), residualStd, seed, tokens),
              add(path + "mlp_norm", layerNorm(), INIT_STD, seed, tokens),
              add(
                  path + "mlp_in",
                  linear((long) config.ffnMultiplier() * width),
                  INIT_STD,
                  seed,
                  tokens),
              add(
                  path + "mlp_out",
                  linear(width),
                  residualStd,
                  seed,
                  new Shape(1, 1, (long) config.ffnMultiplier() * width))));
    }
    finalNorm = add("final_norm", layerNorm(), INIT_STD, seed, tokens);
  }

  /**
   * A freshly initialised model. The same config and seed give the same weights on every device.
   *
   * @param tokenizerJson a HuggingFace tokenizer.json; its bytes are kept and saved with the model
   */
  public static DecoderLm create(LmConfig config, Path tokenizerJson, Device device, long seed) {
    byte[] bytes;
    try {
      bytes = Files.readAllBytes(tokenizerJson);
    } catch (IOException e) {
      throw new UncheckedIOException("tokenizer: cannot read " + tokenizerJson.toAbsolutePath(), e);
    }
    return create(config, bytes, device, seed);
  }

  /** As {@link #create(LmConfig, Path, Device, long)}, from tokenizer.json bytes. */
  public static DecoderLm create(LmConfig config, byte[] tokenizerJson, Device device, long seed) {
    List<String> problems = new ArrayList<>(config.problems());
    if (!LmConfig.INFUSE_DECODER.equals(config.architecture())) {
      problems.add(
          "architecture: got "
              + config.architecture()
              + ", expected "
              + LmConfig.INFUSE_DECODER
              + " for DecoderLm");
    }
    if (!problems.isEmpty()) {
      throw new IllegalArgumentException("lm config: " + String.join("; ", problems));
    }
    return new DecoderLm(config, tokenizerJson, device, seed);
  }

  private IdEmbedding embedding(long rows) {
    return new IdEmbedding.Builder()
        .setDictionarySize(Math.toIntExact(rows))
        .setEmbeddingSize(config.dModel())
        .build();
  }

  private static LayerNorm layerNorm() {
    // axis 2: normalise each token's features, not the whole [T, C] slab (DJL's default).
    return LayerNorm.builder().axis(2).build();
  }

  private static Linear linear(long units) {
    return Linear.builder().setUnits(units).build();
  }

  /**
   * Initialises {@code block} with seeded weights and registers its parameters under {@code path}.
   */
  private <B extends AbstractBlock> B add(
      String path, B block, double std, long seed, Shape inputShape) {
    block.setInitializer(
        new SeededNormal(SeededNormal.seedFor(seed, path), std), Parameter.Type.WEIGHT);
    block.initialize(manager, DataType.FLOAT32, inputShape);
    for (Pair<String, Parameter> entry : block.getParameters()) {
      String name = path + "." + entry.getKey();
      entry.getValue().getArray().setName(name);
      parameters.put(name, entry.getValue());
    }
    return block;
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
    return manager.getDevice();
  }

  /** The tokenizer.json bytes the model was created with, saved beside the weights. */
  public byte[] tokenizerJson() {
    return tokenizerJson.clone();
  }

  /**
   * Every trainable parameter by path, in a fixed order. The arrays are live: the trainer updates
   * them.
   */
  public Map<String, Parameter> parameters() {
    return Collections.unmodifiableMap(parameters);
  }

  /**
   * Copies {@code weights} (named by parameter path) into this model; every parameter must be
   * present.
   */
  public void loadWeights(NDList weights) {
    Map<String, NDArray> byName = new LinkedHashMap<>();
    for (NDArray array : weights) {
      byName.put(array.getName(), array);
    }
    for (Map.Entry<String, Parameter> entry : parameters.entrySet()) {
      NDArray source = byName.get(entry.getKey());
      NDArray target = entry.getValue().getArray();
      if (source == null) {
        throw new IllegalArgumentException("weights: missing tensor " + entry.getKey());
      }
      if (!source.getShape().equals(target.getShape())) {
        throw new IllegalArgumentException(
            "weights: tensor "
                + entry.getKey()
                + " has shape "
                + source.getShape()
                + ", expected "
                + target.getShape()
                + " for this config");
      }
      target.set(source.toType(DataType.FLOAT32, false).toFloatArray());
    }
  }

  @Override
  public boolean supportsKvCache() {
    return true;
  }

  @Override
  public KvCache newCache(NDManager cacheManager, int batchSize) {
    if (batchSize <= 0) {
      throw new IllegalArgumentException(
          "batchSize: got " + batchSize + ", expected a positive integer");
    }
    return new DecoderKvCache(cacheManager, batchSize, config.layers());
  }

  @Override
  public NDArray forward(NDArray tokens, NDArray positions, NDArray keyMask, KvCache cache) {
    DecoderKvCache decoderCache = checkCache(cache);
    Shape shape = tokens.getShape();
    requireShape("positions", positions, shape);
    long batch = shape.get(0);
    long fed = shape.get(1);
    int past = decoderCache == null ? 0 : decoderCache.length();
    if (decoderCache != null && decoderCache.batchSize != batch) {
      throw new IllegalArgumentException(
          "cache: holds "
              + decoderCache.batchSize
              + " rows, expected the batch size "
              + batch
              + " of tokens");
    }
    requireShape("keyMask", keyMask, new Shape(batch, past + fed));
    try (NDScope scope = new NDScope()) {
      NDManager caller = tokens.getManager();
      NDArray onDevice = tokens.toDevice(device(), false);
      NDArray keys =
          keyMask
              .toDevice(device(), false)
              .toType(DataType.BOOLEAN, false)
              .reshape(batch, 1, 1, past + fed);
      boolean[] causal = new boolean[Math.toIntExact(fed * (past + fed))];
      for (int i = 0; i < fed; i++) {
        for (int j = 0; j <= past + i; j++) {
          causal[Math.toIntExact(i * (past + fed) + j)] = true;
        }
      }
      NDArray allowed =
          keys.logicalAnd(
              caller.create(causal, new Shape(1, 1, fed, past + fed)).toDevice(device(), false));
      NDArray logits = run(onDevice, checkedPositions(positions), allowed, decoderCache, false)[0];
      if (decoderCache != null) {
        decoderCache.length += Math.toIntExact(fed);
      }
      logits.attach(caller);
      NDScope.unregister(logits);
      return logits;
    }
  }

  /**
   * The training forward pass: logits at every position of {@code tokens}, attention restricted by
   * {@code attentionMask} alone (so packed documents can be kept apart). Records gradients inside a
   * {@code GradientCollector}; intermediate arrays attach to {@code tokens}' manager.
   *
   * @param tokens int64 [B, T]
   * @param positions int64 [B, T], each token's position within its document
   * @param attentionMask boolean or int [B, T, T] or [B, 1, T, T]; [b, i, j] is 1 where query i may
   *     attend to key j. It must already be causal.
   * @return float32 logits [B, T, vocabSize]
   */
  public NDArray forwardTraining(NDArray tokens, NDArray positions, NDArray attentionMask) {
    return forwardTrainingWithHidden(tokens, positions, attentionMask)[0];
  }

  /**
   * As {@link #forwardTraining}, also returning the final hidden states: the residual stream after
   * the final LayerNorm, the input of the tied LM head. Value heads and scalar verifiers read
   * these. Gradients flow through both outputs.
   *
   * @return {@code {logits [B, T, vocabSize], hidden [B, T, dModel]}}, both float32
   */
  public NDArray[] forwardTrainingWithHidden(
      NDArray tokens, NDArray positions, NDArray attentionMask) {
    Shape shape = tokens.getShape();
    requireShape("positions", positions, shape);
    long batch = shape.get(0);
    long length = shape.get(1);
    Shape mask = attentionMask.getShape();
    if (!mask.equals(new Shape(batch, length, length))
        && !mask.equals(new Shape(batch, 1, length, length))) {
      throw new IllegalArgumentException(
          "attentionMask: got shape "
              + mask
              + ", expected ("
              + batch
              + ", "
              + length
              + ", "
              + length
              + ") or ("
              + batch
              + ", 1, "
              + length
              + ", "
              + length
              + ")");
    }
    NDArray allowed =
        attentionMask
            .toDevice(device(), false)
            .toType(DataType.BOOLEAN, false)
            .reshape(batch, 1, length, length);
    return run(tokens.toDevice(device(), false), checkedPositions(positions), allowed, null, true);
  }

  /**
   * The LM head alone: logits from final hidden states (as returned by {@link
   * #forwardTrainingWithHidden}), through the tied token embedding. Records gradients inside a
   * {@code GradientCollector}.
   *
   * @param hidden float32 [..., dModel]
   * @return float32 logits [..., vocabSize]
   */
  public NDArray logitsFromHidden(NDArray hidden) {
    ParameterStore store = new ParameterStore(hidden.getManager(), false);
    NDArray tied = store.getValue(parameters.get("token_embedding.embedding"), device(), true);
    return Linear.linear(hidden.toDevice(device(), false), tied).head();
  }

  /**
   * Positions past the context would index outside the position table; pads may carry anything
   * below 0.
   */
  private NDArray checkedPositions(NDArray positions) {
    long max = positions.max().getLong();
    if (max >= config.contextLength()) {
      throw new IllegalArgumentException(
          "positions: got " + max + ", expected below context_length " + config.contextLength());
    }
    return positions.toDevice(device(), false).clip(0, config.contextLength() - 1);
  }

  /** Returns {@code {logits, hidden}}: the LM head's output and its input, the final norm's. */
  private NDArray[] run(
      NDArray tokens, NDArray positions, NDArray allowed, DecoderKvCache cache, boolean training) {
    ParameterStore store = new ParameterStore(tokens.getManager(), false);
    long batch = tokens.getShape().get(0);
    long length = tokens.getShape().get(1);
    int width = config.dModel();
    int heads = config.heads();
    int headWidth = width / heads;
    float scale = (float) (1.0 / Math.sqrt(headWidth));
    NDArray bias = allowed.toType(DataType.FLOAT32, false).sub(1f).mul(-MASKED_SCORE);
    NDArray tied = store.getValue(parameters.get("token_embedding.embedding"), device(), training);
    NDArray x =
        lookUp(tied, tokens)
            .add(
                lookUp(
                    store.getValue(
                        parameters.get("position_embedding.embedding"), device(), training),
                    positions));
    for (int i = 0; i < layers.size(); i++) {
      Layer layer = layers.get(i);
      NDList qkv =
          apply(layer.qkv, store, apply(layer.attentionNorm, store, x, training), training)
              .split(3, 2);
      NDArray query = splitHeads(qkv.get(0), heads, headWidth);
      NDArray key = splitHeads(qkv.get(1), heads, headWidth);
      NDArray value = splitHeads(qkv.get(2), heads, headWidth);
      if (cache != null) {
        NDArray[] past = cache.append(i, key, value);
        key = past[0];
        value = past[1];
      }
      NDArray scores =
          GraphConstants.times(query.matMul(key.transpose(0, 1, 3, 2)), scale).add(bias);
      NDArray attended =
          scores.softmax(-1).matMul(value).transpose(0, 2, 1, 3).reshape(batch, length, width);
      x = x.add(apply(layer.attentionOut, store, attended, training));
      NDArray hidden =
          Activation.gelu(
              apply(layer.mlpIn, store, apply(layer.mlpNorm, store, x, training), training));
      x = x.add(apply(layer.mlpOut, store, hidden, training));
    }
    NDArray normed = apply(finalNorm, store, x, training);
    return new NDArray[] {Linear.linear(normed, tied).head(), normed};
  }

  /**
   * Rows of {@code table} by id via torch.embedding. IdEmbedding's own forward (gatherNd) gave an
   * occasional infinite gradient norm in training here under load; torch.embedding's backward is
   * PyTorch's plain scatter-add and has not.
   */
  private static NDArray lookUp(NDArray table, NDArray ids) {
    return Embedding.embedding(ids, table, SparseFormat.DENSE).head();
  }

  private static NDArray apply(
      AbstractBlock block, ParameterStore store, NDArray input, boolean training) {
    return block.forward(store, new NDList(input), training).head();
  }

  /** [B, T, C] to [B, H, T, C / H]. */
  private static NDArray splitHeads(NDArray x, int heads, int headWidth) {
    Shape shape = x.getShape();
    return x.reshape(shape.get(0), shape.get(1), heads, headWidth).transpose(0, 2, 1, 3);
  }

  private static void requireShape(String name, NDArray array, Shape expected) {
    if (!array.getShape().equals(expected)) {
      throw new IllegalArgumentException(
          name + ": got shape " + array.getShape() + ", expected " + expected);
    }
  }

  private static DecoderKvCache checkCache(KvCache cache) {
    if (cache == null || cache instanceof DecoderKvCache) {
      return (DecoderKvCache) cache;
    }
    throw new IllegalArgumentException(
        "cache: got a " + cache.getClass().getName() + ", expected one from this model's newCache");
  }

  @Override
  public void close() {
    manager.close();
    tokenizer.close();
  }

  /** Per layer, the keys and values [B, H, P, C / H] of every position fed so far. */
  private static final class DecoderKvCache implements KvCache {
    private final NDManager manager;
    private final NDArray[] keys;
    private final NDArray[] values;
    private int batchSize;
    private int length;

    DecoderKvCache(NDManager manager, int batchSize, int layers) {
      this.manager = manager;
      this.batchSize = batchSize;
      this.keys = new NDArray[layers];
      this.values = new NDArray[layers];
    }

    /** Extends layer {@code layer} with the new keys and values and returns all of them. */
    NDArray[] append(int layer, NDArray key, NDArray value) {
      keys[layer] = extend(keys[layer], key);
      values[layer] = extend(values[layer], value);
      return new NDArray[] {keys[layer], values[layer]};
    }

    private NDArray extend(NDArray past, NDArray fresh) {
      // Detached: the cache outlives the call and must not keep the autograd graph alive.
      NDArray all = (past == null ? fresh : past.concat(fresh, 2)).stopGradient();
      all.attach(manager);
      NDScope.unregister(all);
      if (past != null) {
        past.close();
      }
      return all;
    }

    @Override
    public int length() {
      return length;
    }

    @Override
    public void keepRows(long[] rows) {
      for (long row : rows) {
        if (row < 0 || row >= batchSize) {
          throw new IllegalArgumentException(
              "rows: got " + row + ", expected 0.." + (batchSize - 1));
        }
      }
      if (length > 0) {
        try (NDScope scope = new NDScope()) {
          for (int layer = 0; layer < keys.length; layer++) {
            keys[layer] = select(keys[layer], rows);
            values[layer] = select(values[layer], rows);
          }
        }
      }
      batchSize = rows.length;
    }

    private NDArray select(NDArray array, long[] rows) {
      NDArray index = manager.create(rows).toDevice(array.getDevice(), false);
      NDArray kept = array.get(index);
      kept.attach(manager);
      NDScope.unregister(kept);
      array.close();
      return kept;
    }

    @Override
    public void close() {
      for (int layer = 0; layer < keys.length; layer++) {
        if (keys[layer] != null) {
          keys[layer].close();
          values[layer].close();
        }
      }
    }
  }
}
