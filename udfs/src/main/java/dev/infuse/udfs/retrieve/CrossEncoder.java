package dev.infuse.udfs.retrieve;

import ai.djl.Device;
import ai.djl.MalformedModelException;
import ai.djl.huggingface.tokenizers.Encoding;
import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import ai.djl.huggingface.tokenizers.jni.LibUtils;
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
import dev.infuse.udfs.embed.EmbeddingModelFiles;
import dev.infuse.udfs.embed.LengthSortedBatches;
import dev.infuse.udfs.embed.TokenBatch;
import dev.infuse.udfs.embed.TokenIds;
import dev.infuse.udfs.model.ModelFileCriteria;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A Hugging Face cross-encoder run by DJL (ONNX Runtime for {@code model.onnx}, the PyTorch engine
 * for a TorchScript {@code model.pt}): each (query, passage) pair is encoded as one sequence pair
 * by the model's {@code tokenizer.json} (special tokens, segment ids 0 and 1), truncated
 * longest-first to the model's maximum length as sentence-transformers' {@code CrossEncoder} does,
 * batched by length, and scored by the model's single relevance logit. Higher is more relevant.
 *
 * <p>Thread-safe: each {@link #score} call opens its own predictor; the model underneath is shared.
 */
public final class CrossEncoder implements AutoCloseable {
  private static final List<String> INPUTS =
      List.of("input_ids", "attention_mask", "token_type_ids");

  private final String modelId;
  private final ZooModel<TokenBatch, float[]> model;
  private final HuggingFaceTokenizer tokenizer;
  private final int maxTokens;
  private final int batchSize;

  private CrossEncoder(
      String modelId,
      ZooModel<TokenBatch, float[]> model,
      HuggingFaceTokenizer tokenizer,
      int maxTokens,
      int batchSize) {
    this.modelId = modelId;
    this.model = model;
    this.tokenizer = tokenizer;
    this.maxTokens = maxTokens;
    this.batchSize = batchSize;
  }

  /**
   * Loads the model the files describe.
   *
   * @param batchSize pairs per forward pass
   * @param threads ONNX Runtime intra-op threads per call (1: each Spark task runs on its own core)
   */
  public static CrossEncoder load(
      CrossEncoderFiles files, Device device, int batchSize, int threads) {
    if (batchSize < 1 || threads < 1 || files.maxTokens() < 3) {
      throw new IllegalArgumentException(
          "cross-encoder: batch size "
              + batchSize
              + ", threads "
              + threads
              + " and max tokens "
              + files.maxTokens()
              + ", expected >= 1, >= 1 and >= 3");
    }
    LibUtils.checkStatus(); // a native library that fails to load is not a bad tokenizer.json
    HuggingFaceTokenizer tokenizer;
    try {
      tokenizer =
          HuggingFaceTokenizer.newInstance(
              new ByteArrayInputStream(files.tokenizerJson()),
              Map.of(
                  "addSpecialTokens", "true",
                  "truncation", "longest_first",
                  "padding", "false",
                  "maxLength", String.valueOf(files.maxTokens())));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (RuntimeException e) {
      throw new IllegalArgumentException(
          "retrieve.rerank "
              + files.modelFile().getParent()
              + ": tokenizer.json is not a Hugging Face tokenizer.json ("
              + e.getMessage()
              + ")",
          e);
    }
    Criteria<TokenBatch, float[]> criteria =
        ModelFileCriteria.forFile(
                Criteria.builder().setTypes(TokenBatch.class, float[].class), files.modelFile())
            .optEngine(files.engine())
            .optDevice(device)
            .optTranslator(new PairTranslator(files.engine()))
            // OrtModel reads intraOpNumThreads only when interOpNumThreads is set too.
            .optOption("interOpNumThreads", "1")
            .optOption("intraOpNumThreads", String.valueOf(threads))
            .build();
    try {
      return new CrossEncoder(
          files.modelId(), criteria.loadModel(), tokenizer, files.maxTokens(), batchSize);
    } catch (IOException | ModelNotFoundException | MalformedModelException | RuntimeException e) {
      tokenizer.close();
      throw new IllegalArgumentException(
          "retrieve.rerank: cannot load "
              + files.modelFile()
              + " with the "
              + files.engine()
              + " engine: "
              + e.getMessage(),
          e);
    }
  }

  public String modelId() {
    return modelId;
  }

  /** The longest pair fed to the model, special tokens included. */
  public int maxTokens() {
    return maxTokens;
  }

  /** The relevance score of each passage to {@code query}, in passage order. */
  public float[] score(String query, List<String> passages) {
    float[] scores = new float[passages.size()];
    if (passages.isEmpty()) {
      return scores;
    }
    PairList<String, String> pairs = new PairList<>(passages.size());
    String cleanQuery = replaceLoneSurrogates(query);
    for (String passage : passages) {
      pairs.add(cleanQuery, replaceLoneSurrogates(passage));
    }
    List<TokenIds> tokens = new ArrayList<>(passages.size());
    for (Encoding encoding : tokenizer.batchEncode(pairs)) {
      tokens.add(new TokenIds(encoding.getIds(), encoding.getTypeIds()));
    }
    try (Predictor<TokenBatch, float[]> predictor = model.newPredictor()) {
      for (int[] batch : LengthSortedBatches.of(tokens, batchSize)) {
        List<TokenIds> rows = new ArrayList<>(batch.length);
        for (int index : batch) {
          rows.add(tokens.get(index));
        }
        float[] batchScores = predictor.predict(TokenBatch.pad(rows));
        for (int i = 0; i < batch.length; i++) {
          scores[batch[i]] = batchScores[i];
        }
      }
    } catch (TranslateException e) {
      throw new IllegalStateException(
          "retrieve.rerank model " + modelId + ": " + e.getMessage(), e);
    }
    return scores;
  }

  @Override
  public void close() {
    model.close();
    tokenizer.close();
  }

  @Override
  public String toString() {
    return "CrossEncoder["
        + modelId
        + ", "
        + model.getNDManager().getDevice()
        + ", max "
        + maxTokens
        + " tokens, batch "
        + batchSize
        + "]";
  }

  /** JNI turns an unpaired surrogate into garbage for Rust; U+FFFD is what it stands for anyway. */
  private static String replaceLoneSurrogates(String text) {
    StringBuilder out = null;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      boolean paired =
          Character.isHighSurrogate(c)
              && i + 1 < text.length()
              && Character.isLowSurrogate(text.charAt(i + 1));
      if (paired) {
        if (out != null) {
          out.append(c).append(text.charAt(i + 1));
        }
        i++;
      } else if (Character.isSurrogate(c)) {
        if (out == null) {
          out = new StringBuilder(text.length()).append(text, 0, i);
        }
        out.append('\uFFFD');
      } else if (out != null) {
        out.append(c);
      }
    }
    return out == null ? text : out.toString();
  }

  /**
   * A padded batch of pairs in, one score per row out. ONNX inputs are matched by name (a model
   * without token_type_ids, such as an XLM-RoBERTa reranker, gets none); TorchScript takes them in
   * BERT's order. The output is the {@code logits} output (else the first), of shape [batch] or
   * [batch, 1].
   */
  private static final class PairTranslator implements NoBatchifyTranslator<TokenBatch, float[]> {
    private final String engine;
    private List<String> inputNames = INPUTS;

    PairTranslator(String engine) {
      this.engine = engine;
    }

    @Override
    public void prepare(TranslatorContext ctx) {
      if (!EmbeddingModelFiles.ONNX_RUNTIME.equals(engine)) {
        return;
      }
      List<String> names = new ArrayList<>();
      for (Pair<String, Shape> input : ctx.getBlock().describeInput()) {
        if (!INPUTS.contains(input.getKey())) {
          throw new IllegalArgumentException(
              "model input "
                  + input.getKey()
                  + ": expected only input_ids, attention_mask and token_type_ids"
                  + " (a Hugging Face sequence-classification export)");
        }
        names.add(input.getKey());
      }
      inputNames = names;
    }

    @Override
    public NDList processInput(TranslatorContext ctx, TokenBatch batch) {
      NDList inputs = batch.toInputs(ctx.getNDManager(), inputNames);
      ctx.setAttachment("rows", batch.rows());
      return inputs;
    }

    @Override
    public float[] processOutput(TranslatorContext ctx, NDList outputs) {
      int rows = (Integer) ctx.getAttachment("rows");
      NDArray logits = outputs.get(0);
      for (NDArray output : outputs) {
        if ("logits"
            .equals(output.getName() == null ? "" : output.getName().toLowerCase(Locale.ROOT))) {
          logits = output;
        }
      }
      Shape shape = logits.getShape();
      boolean single =
          (shape.dimension() == 1 && shape.get(0) == rows)
              || (shape.dimension() == 2 && shape.get(0) == rows && shape.get(1) == 1);
      if (!single) {
        throw new IllegalStateException(
            "model output "
                + logits.getName()
                + ": got shape "
                + shape
                + " for "
                + rows
                + " pair(s), expected ["
                + rows
                + "] or ["
                + rows
                + ", 1] (one relevance logit per pair, as a cross-encoder for reranking has)");
      }
      return logits.toType(ai.djl.ndarray.types.DataType.FLOAT32, false).toFloatArray();
    }
  }
}
