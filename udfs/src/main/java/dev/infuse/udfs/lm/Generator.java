package dev.infuse.udfs.lm;

import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.SplittableRandom;

/**
 * Batched text generation over any {@link CausalLm}.
 *
 * <p>An own decode loop rather than DJL's {@code TextGenerator}: that one hard-codes GPT-2's EOS id
 * (50256), wants a predictor of its own input shape, and samples on the device, while here every
 * row needs its own options, EOS comes from {@link LmConfig}, and sampling must not depend on the
 * batch.
 *
 * <p>How a batch runs: prompts are encoded without special tokens (an empty prompt becomes the EOS
 * token, as the lm-evaluation-harness does), left-padded to one width, with positions that start at
 * 0 in every row. With a KV cache the prompts are fed once and each step feeds one token per row;
 * without one the whole sequence is fed again every step. Rows that finish are dropped from the
 * batch (and the cache, {@code keepRows}). Each row samples on the host with its own random stream
 * seeded from its options, so batched output equals one-by-one output for greedy and seeded
 * sampling alike.
 *
 * <p>Context length: a prompt keeps its last {@code contextLength - maxNewTokens} tokens (the
 * harness's rule), but never fewer than half the context; a row also ends with {@code length} when
 * its sequence fills the context.
 *
 * <p>Thread-safe if the model is: each call uses its own NDManager and cache.
 */
public final class Generator {
  /** The engine the models run on; its NDManager holds each call's inputs. */
  static final String ENGINE = "PyTorch";

  private final CausalLm model;
  private final int maxBatchRows;

  /**
   * @param maxBatchRows the most rows decoded together; longer lists are split
   */
  public Generator(CausalLm model, int maxBatchRows) {
    this.model = Objects.requireNonNull(model, "model");
    if (maxBatchRows < 1) {
      throw new IllegalArgumentException(
          "max batch rows: got " + maxBatchRows + ", expected 1 or more");
    }
    this.maxBatchRows = maxBatchRows;
  }

  /** Generates every prompt with the same options; results in prompt order. */
  public List<GeneratedText> generate(List<String> prompts, GenerationOptions options) {
    List<GenerationRequest> requests = new ArrayList<>(prompts.size());
    for (String prompt : prompts) {
      requests.add(new GenerationRequest(prompt, options));
    }
    return generate(requests);
  }

  /** Generates every request with its own options; results in request order. */
  public List<GeneratedText> generate(List<GenerationRequest> requests) {
    List<Row> rows = new ArrayList<>(requests.size());
    for (GenerationRequest request : requests) {
      rows.add(new Row(promptIds(request), request.options()));
    }
    // Similar lengths together waste less padding; output does not depend on the grouping.
    List<Row> byLength = new ArrayList<>(rows);
    byLength.sort(Comparator.comparingInt(row -> row.prompt.length));
    for (int start = 0; start < byLength.size(); start += maxBatchRows) {
      decode(byLength.subList(start, Math.min(byLength.size(), start + maxBatchRows)));
    }
    List<GeneratedText> results = new ArrayList<>(rows.size());
    for (Row row : rows) {
      results.add(new GeneratedText(row.text, row.finish, row.prompt.length, row.generatedCount));
    }
    return results;
  }

  private long[] promptIds(GenerationRequest request) {
    long[] ids = TokenIds.encode(model.tokenizer(), request.prompt());
    if (ids.length == 0) {
      ids = new long[] {model.config().eosTokenId()};
    }
    int context = model.config().contextLength();
    int budget = Math.max(Math.max(1, context / 2), context - request.options().maxNewTokens());
    return ids.length <= budget ? ids : Arrays.copyOfRange(ids, ids.length - budget, ids.length);
  }

  private void decode(List<Row> batch) {
    List<Row> live = new ArrayList<>();
    for (Row row : batch) {
      if (row.options.maxNewTokens() == 0) {
        row.finish(GeneratedText.LENGTH, "");
      } else {
        live.add(row);
      }
    }
    if (live.isEmpty()) {
      return;
    }
    try (NDManager manager = NDManager.newBaseManager(model.device(), ENGINE);
        CausalLm.KvCache cache =
            model.supportsKvCache() ? model.newCache(manager, live.size()) : null) {
      int[] padding = null;
      boolean first = true;
      while (!live.isEmpty()) {
        float[] logits;
        int vocab;
        try (NDManager step = manager.newSubManager()) {
          NDArray out;
          if (cache == null || first) {
            LeftPaddedBatch input =
                LeftPaddedBatch.of(step, sequences(live), model.config().padTokenId());
            out = model.forward(input.tokens(), input.positions(), input.keyMask(), cache);
            padding = input.padding();
          } else {
            out = feedLastTokens(step, live, padding, cache);
          }
          // The logits' own width, not vocab_size: an export may pad its output vocabulary.
          vocab = Math.toIntExact(out.getShape().get(2));
          logits = out.get(":, -1, :").toFloatArray();
        }
        first = false;
        List<Row> still = new ArrayList<>(live.size());
        List<Integer> keptIndices = new ArrayList<>(live.size());
        for (int i = 0; i < live.size(); i++) {
          Row row = live.get(i);
          advance(row, TokenSampler.next(logits, i * vocab, vocab, row.options, row.random));
          if (row.finish == null) {
            still.add(row);
            keptIndices.add(i);
          }
        }
        if (cache != null && still.size() < live.size() && !still.isEmpty()) {
          long[] keep = keptIndices.stream().mapToLong(Integer::longValue).toArray();
          cache.keepRows(keep);
          int[] keptPadding = new int[keep.length];
          for (int i = 0; i < keep.length; i++) {
            keptPadding[i] = padding[(int) keep[i]];
          }
          padding = keptPadding;
        }
        live = still;
      }
    }
  }

  /** One decode step with the cache: each row's newest token, at its own next position. */
  private NDArray feedLastTokens(
      NDManager step, List<Row> live, int[] padding, CausalLm.KvCache cache) {
    int rows = live.size();
    int keys = cache.length() + 1;
    long[] tokens = new long[rows];
    long[] positions = new long[rows];
    long[] mask = new long[rows * keys];
    for (int b = 0; b < rows; b++) {
      Row row = live.get(b);
      tokens[b] = row.generated[row.generatedCount - 1];
      positions[b] = row.prompt.length + row.generatedCount - 1L;
      Arrays.fill(mask, b * keys + padding[b], (b + 1) * keys, 1L);
    }
    return model.forward(
        step.create(tokens, new Shape(rows, 1)),
        step.create(positions, new Shape(rows, 1)),
        step.create(mask, new Shape(rows, keys)),
        cache);
  }

  private static List<long[]> sequences(List<Row> live) {
    List<long[]> sequences = new ArrayList<>(live.size());
    for (Row row : live) {
      long[] sequence = Arrays.copyOf(row.prompt, row.prompt.length + row.generatedCount);
      System.arraycopy(row.generated, 0, sequence, row.prompt.length, row.generatedCount);
      sequences.add(sequence);
    }
    return sequences;
  }

  /** Appends the sampled token and decides whether the row is done. */
  private void advance(Row row, int token) {
    row.append(token);
    HuggingFaceTokenizer tokenizer = model.tokenizer();
    if (token == model.config().eosTokenId()) {
      row.finish(
          GeneratedText.STOP,
          tokenizer.decode(Arrays.copyOf(row.generated, row.generatedCount - 1), true));
      return;
    }
    String text = null;
    if (!row.options.stop().isEmpty()) {
      text = tokenizer.decode(Arrays.copyOf(row.generated, row.generatedCount), true);
      int cut = firstStop(text, row.options.stop());
      if (cut >= 0) {
        row.finish(GeneratedText.STOP, text.substring(0, cut));
        return;
      }
    }
    boolean full = row.prompt.length + row.generatedCount >= model.config().contextLength();
    if (row.generatedCount >= row.options.maxNewTokens() || full) {
      row.finish(
          GeneratedText.LENGTH,
          text != null
              ? text
              : tokenizer.decode(Arrays.copyOf(row.generated, row.generatedCount), true));
    }
  }

  private static int firstStop(String text, List<String> stops) {
    int first = -1;
    for (String stop : stops) {
      int at = text.indexOf(stop);
      if (at >= 0 && (first < 0 || at < first)) {
        first = at;
      }
    }
    return first;
  }

  /** One row's state while it decodes. */
  private static final class Row {
    final long[] prompt;
    final GenerationOptions options;
    final SplittableRandom random;
    long[] generated = new long[16];
    int generatedCount;
    String text;
    String finish;

    Row(long[] prompt, GenerationOptions options) {
      this.prompt = prompt;
      this.options = options;
      this.random = new SplittableRandom(options.seed());
    }

    void append(long token) {
      if (generatedCount == generated.length) {
        generated = Arrays.copyOf(generated, generated.length * 2);
      }
      generated[generatedCount++] = token;
    }

    void finish(String reason, String finalText) {
      this.finish = reason;
      this.text = finalText;
    }
  }
}
