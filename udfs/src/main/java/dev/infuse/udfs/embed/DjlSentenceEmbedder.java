package dev.infuse.udfs.embed;

import ai.djl.Device;
import ai.djl.MalformedModelException;
import ai.djl.inference.Predictor;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.types.Shape;
import ai.djl.repository.zoo.Criteria;
import ai.djl.repository.zoo.ModelNotFoundException;
import ai.djl.repository.zoo.ZooModel;
import ai.djl.translate.NoBatchifyTranslator;
import ai.djl.translate.TranslateException;
import ai.djl.translate.TranslatorContext;
import ai.djl.util.Pair;
import ai.djl.util.PairList;
import dev.infuse.udfs.model.ModelFileCriteria;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A sentence-transformers encoder run by DJL: ONNX Runtime for {@code model.onnx} (the default
 * MiniLM), the PyTorch engine for a TorchScript {@code model.pt}. Texts are tokenized, sorted by
 * length into batches, encoded, mean-pooled over the attention mask and L2-normalised; results come
 * back in input order.
 *
 * <p>A text longer than the encoder's window of {@link #MAX_TOKENS} tokens (special tokens
 * included) is never cut silently: under {@link LongTextMode#WINDOW} it is encoded as consecutive
 * full windows that overlap by {@link #WINDOW_OVERLAP_TOKENS} tokens (the last window ends at the
 * text's end), and its vector is the L2-normalised mean of the windows' vectors; under {@link
 * LongTextMode#WARN} only its first window is encoded. Either way {@link #embedAll} reports how
 * many windows each text spans, for the job to count.
 *
 * <p>DJL rather than ONNX Runtime directly: the same code serves both engines and {@code Devices},
 * and the layer costs little (the benchmark in {@code tests} measures it against a raw {@code
 * OrtSession}).
 *
 * <p>Thread-safe: each {@link #embed} call opens its own predictor; the model underneath is shared.
 */
public final class DjlSentenceEmbedder implements TextEmbedder {
  /**
   * Tokens fed per window, special tokens included (MiniLM was trained at 256); longer texts are
   * windowed or truncated as {@link LongTextMode} says.
   */
  public static final int MAX_TOKENS = 256;

  /**
   * Text tokens that consecutive windows of a long text share at least: a quarter of MiniLM's 254
   * text tokens, so that a sentence cut by one window's edge is whole in the next.
   */
  public static final int WINDOW_OVERLAP_TOKENS = 64;

  private final String modelId;
  private final LongTextMode longText;
  private final ZooModel<TokenBatch, float[][]> model;
  private final EmbeddingTokenizer tokenizer;
  private final int batchSize;
  private final int dimension;

  private DjlSentenceEmbedder(
      String modelId,
      LongTextMode longText,
      ZooModel<TokenBatch, float[][]> model,
      EmbeddingTokenizer tokenizer,
      int batchSize) {
    this.modelId = modelId;
    this.longText = longText;
    this.model = model;
    this.tokenizer = tokenizer;
    this.batchSize = batchSize;
    this.dimension = probeDimension();
  }

  /**
   * Loads the model the files describe.
   *
   * @param threads ONNX Runtime intra-op threads per call (1: each Spark task runs on its own
   *     core); the PyTorch engine takes its thread count from {@code ai.djl.pytorch.num_threads}
   *     instead
   * @param longText what to do with texts longer than {@link #MAX_TOKENS}; it is part of {@link
   *     #modelId}
   */
  public static DjlSentenceEmbedder load(
      EmbeddingModelFiles files, Device device, int batchSize, int threads, LongTextMode longText) {
    if (batchSize < 1 || threads < 1) {
      throw new IllegalArgumentException(
          "embedder: batch size " + batchSize + " and threads " + threads + ", expected both >= 1");
    }
    EmbeddingTokenizer tokenizer;
    try {
      tokenizer = new EmbeddingTokenizer(files.tokenizerJson(), MAX_TOKENS);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "embed model " + files.modelFile().getParent() + ": tokenizer.json is " + e.getMessage(),
          e);
    }
    Criteria<TokenBatch, float[][]> criteria =
        ModelFileCriteria.forFile(
                Criteria.builder().setTypes(TokenBatch.class, float[][].class), files.modelFile())
            .optEngine(files.engine())
            .optDevice(device)
            .optTranslator(new SentenceTranslator(files.engine()))
            // OrtModel reads intraOpNumThreads only when interOpNumThreads is set too.
            .optOption("interOpNumThreads", "1")
            .optOption("intraOpNumThreads", String.valueOf(threads))
            .build();
    try {
      return new DjlSentenceEmbedder(
          longText.modelId(files.modelId()), longText, criteria.loadModel(), tokenizer, batchSize);
    } catch (IOException | ModelNotFoundException | MalformedModelException | RuntimeException e) {
      tokenizer.close();
      throw new IllegalArgumentException(
          "embed model: cannot load "
              + files.modelFile()
              + " with the "
              + files.engine()
              + " engine: "
              + e.getMessage(),
          e);
    }
  }

  @Override
  public String modelId() {
    return modelId;
  }

  @Override
  public int dimension() {
    return dimension;
  }

  public int batchSize() {
    return batchSize;
  }

  public Device device() {
    return model.getNDManager().getDevice();
  }

  public LongTextMode longText() {
    return longText;
  }

  @Override
  public float[][] embed(List<String> texts) {
    return embedAll(texts).vectors();
  }

  @Override
  public EmbeddedTexts embedAll(List<String> texts) {
    List<List<TokenIds>> windows = tokenizer.windows(texts, WINDOW_OVERLAP_TOKENS);
    int[] counts = new int[texts.size()];
    List<TokenIds> inputs = new ArrayList<>();
    List<Integer> owners = new ArrayList<>();
    for (int t = 0; t < counts.length; t++) {
      List<TokenIds> own = windows.get(t);
      counts[t] = own.size();
      List<TokenIds> used = longText == LongTextMode.WINDOW ? own : own.subList(0, 1);
      for (TokenIds window : used) {
        inputs.add(window);
        owners.add(t);
      }
    }
    float[][] windowVectors = encode(inputs);
    float[][] result = new float[counts.length][];
    for (int i = 0; i < windowVectors.length; i++) {
      int t = owners.get(i);
      if (result[t] == null) {
        result[t] = windowVectors[i].clone();
      } else {
        for (int d = 0; d < result[t].length; d++) {
          result[t][d] += windowVectors[i][d];
        }
      }
    }
    for (int t = 0; t < result.length; t++) {
      if (longText == LongTextMode.WINDOW && counts[t] > 1) {
        // The mean's direction is the sum's: normalising the sum is normalising the mean.
        Pooling.normalized(result[t]);
      }
    }
    return new EmbeddedTexts(result, counts);
  }

  /** One pooled unit vector per window, in input order. */
  private float[][] encode(List<TokenIds> tokens) {
    float[][] result = new float[tokens.size()][];
    if (tokens.isEmpty()) {
      return result;
    }
    try (Predictor<TokenBatch, float[][]> predictor = model.newPredictor()) {
      for (int[] batch : LengthSortedBatches.of(tokens, batchSize)) {
        List<TokenIds> rows = new ArrayList<>(batch.length);
        for (int index : batch) {
          rows.add(tokens.get(index));
        }
        float[][] vectors = predictor.predict(TokenBatch.pad(rows));
        for (int i = 0; i < batch.length; i++) {
          result[batch[i]] = vectors[i];
        }
      }
    } catch (TranslateException e) {
      throw new IllegalStateException("embed model " + modelId + ": " + e.getMessage(), e);
    }
    return result;
  }

  @Override
  public void close() {
    model.close();
    tokenizer.close();
  }

  @Override
  public String toString() {
    return "DjlSentenceEmbedder["
        + modelId
        + ", "
        + model.getNDManager().getDevice()
        + ", batch "
        + batchSize
        + ", long texts: "
        + longText.id()
        + "]";
  }

  private int probeDimension() {
    float[][] probe = embed(List.of("dimension probe"));
    return probe[0].length;
  }

  /**
   * Turns a padded batch into the model's inputs and its output into pooled unit vectors. ONNX
   * inputs are matched by name (a model without token_type_ids gets none); TorchScript takes them
   * in BERT's order.
   */
  private static final class SentenceTranslator
      implements NoBatchifyTranslator<TokenBatch, float[][]> {
    private final String engine;
    private List<String> inputNames = List.of("input_ids", "attention_mask", "token_type_ids");

    SentenceTranslator(String engine) {
      this.engine = engine;
    }

    @Override
    public void prepare(TranslatorContext ctx) {
      if (!EmbeddingModelFiles.ONNX_RUNTIME.equals(engine)) {
        return;
      }
      PairList<String, Shape> described = ctx.getBlock().describeInput();
      List<String> names = new ArrayList<>();
      for (Pair<String, Shape> input : described) {
        String name = input.getKey();
        if (!List.of("input_ids", "attention_mask", "token_type_ids").contains(name)) {
          throw new IllegalArgumentException(
              "model input "
                  + name
                  + ": expected only input_ids, attention_mask"
                  + " and token_type_ids (a sentence-transformers export)");
        }
        names.add(name);
      }
      inputNames = names;
    }

    @Override
    public NDList processInput(TranslatorContext ctx, TokenBatch batch) {
      NDList inputs = batch.toInputs(ctx.getNDManager(), inputNames);
      ctx.setAttachment("batch", batch);
      return inputs;
    }

    @Override
    public float[][] processOutput(TranslatorContext ctx, NDList outputs) {
      TokenBatch batch = (TokenBatch) ctx.getAttachment("batch");
      NDArray hidden = tokenOutput(outputs);
      Shape shape = hidden.getShape();
      float[] values = hidden.toFloatArray();
      if (shape.dimension() == 3) {
        return Pooling.meanPoolNormalized(
            values, batch.attentionMask(), batch.rows(), batch.length(), (int) shape.get(2));
      }
      if (shape.dimension() == 2) { // the export pools itself (sentence_embedding)
        return Pooling.rowsNormalized(values, batch.rows(), (int) shape.get(1));
      }
      throw new IllegalStateException(
          "model output "
              + hidden.getName()
              + ": got shape "
              + shape
              + ", expected [batch, tokens, dim] or [batch, dim]");
    }

    /** Token vectors by their usual names, else the first output. */
    private static NDArray tokenOutput(NDList outputs) {
      for (NDArray output : outputs) {
        String name = output.getName() == null ? "" : output.getName().toLowerCase(Locale.ROOT);
        if (name.equals("last_hidden_state") || name.equals("token_embeddings")) {
          return output;
        }
      }
      return outputs.get(0);
    }
  }
}
