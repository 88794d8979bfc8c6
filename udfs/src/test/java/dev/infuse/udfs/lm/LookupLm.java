package dev.infuse.udfs.lm;

import ai.djl.Device;
import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * A test-only {@link CausalLm} whose next-token log-probabilities are a Java function of the row's
 * history (its real tokens so far, the current one last), so tests can compute expected values by
 * hand. It checks the {@link CausalLm#forward} contract on every call and throws when a caller
 * breaks it: positions must count only the unmasked keys before a token (so left-padded rows start
 * at 0), and the key mask must span the cached positions plus the new ones. With a KV cache the
 * history is kept in the cache, so a caller that feeds the wrong rows after {@code keepRows} gets
 * wrong logits.
 */
public final class LookupLm implements CausalLm {
  private final LmConfig config;
  private final HuggingFaceTokenizer tokenizer;
  private final boolean kvCache;
  private final Function<List<Integer>, double[]> logProbs;

  /** Calls to forward, and the most rows one call carried. */
  public final AtomicInteger forwardCalls = new AtomicInteger();

  public final AtomicInteger widestBatch = new AtomicInteger();

  /**
   * @param logProbs history → scores over the vocabulary (log-probabilities or any logits)
   */
  public LookupLm(int contextLength, boolean kvCache, Function<List<Integer>, double[]> logProbs) {
    this(
        CharTokenizer.create(),
        CharTokenizer.VOCAB_SIZE,
        CharTokenizer.EOS,
        contextLength,
        kvCache,
        logProbs);
  }

  /**
   * A model over another tokenizer, which it closes.
   *
   * @param eos the EOS and padding token
   * @param logProbs history → scores over the {@code vocabSize} ids
   */
  public LookupLm(
      HuggingFaceTokenizer tokenizer,
      int vocabSize,
      int eos,
      int contextLength,
      boolean kvCache,
      Function<List<Integer>, double[]> logProbs) {
    this.config =
        new LmConfig(LmConfig.TORCHSCRIPT, vocabSize, 0, 0, 0, contextLength, 0, eos, eos);
    this.tokenizer = tokenizer;
    this.kvCache = kvCache;
    this.logProbs = logProbs;
  }

  /** A bigram model: the scores depend on the current token only. */
  public static LookupLm bigram(
      int contextLength, boolean kvCache, Function<Integer, double[]> next) {
    return new LookupLm(
        contextLength, kvCache, history -> next.apply(history.get(history.size() - 1)));
  }

  /**
   * Log-probabilities over the vocabulary: the given ids share {@code probs}, the rest share what
   * is left.
   */
  public static double[] distribution(int[] ids, double[] probs) {
    return distribution(CharTokenizer.VOCAB_SIZE, ids, probs);
  }

  /** {@link #distribution(int[], double[])} over a vocabulary of {@code vocabSize} ids. */
  public static double[] distribution(int vocabSize, int[] ids, double[] probs) {
    double rest = 1.0;
    for (double p : probs) {
      rest -= p;
    }
    int others = vocabSize - ids.length;
    double[] scores = new double[vocabSize];
    java.util.Arrays.fill(scores, Math.log(Math.max(rest, 0) / others));
    for (int i = 0; i < ids.length; i++) {
      scores[ids[i]] = Math.log(probs[i]);
    }
    return scores;
  }

  /** Scores over a b c d e and EOS that depend on the whole history, so a mixed-up cache shows. */
  public static double[] historyHash(List<Integer> history) {
    long hash = 1469598103934665603L;
    for (int token : history) {
      hash = (hash ^ token) * 1099511628211L;
    }
    java.util.SplittableRandom random = new java.util.SplittableRandom(hash);
    double[] scores = new double[CharTokenizer.VOCAB_SIZE];
    java.util.Arrays.fill(scores, -30);
    for (char c = 'a'; c <= 'e'; c++) {
      scores[CharTokenizer.id(c)] = random.nextDouble() * 3;
    }
    scores[CharTokenizer.EOS] = random.nextDouble() * 2;
    return scores;
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
    return Device.cpu();
  }

  @Override
  public boolean supportsKvCache() {
    return kvCache;
  }

  @Override
  public KvCache newCache(NDManager manager, int batchSize) {
    if (!kvCache) {
      throw new UnsupportedOperationException("no KV cache");
    }
    return new HistoryCache(batchSize);
  }

  @Override
  public NDArray forward(NDArray tokens, NDArray positions, NDArray keyMask, KvCache cache) {
    forwardCalls.incrementAndGet();
    int rows = Math.toIntExact(tokens.getShape().get(0));
    int fed = Math.toIntExact(tokens.getShape().get(1));
    widestBatch.accumulateAndGet(rows, Math::max);
    HistoryCache history = (HistoryCache) cache;
    int cached = history == null ? 0 : history.length;
    check(
        positions.getShape().equals(new Shape(rows, fed)),
        "positions shape " + positions.getShape());
    check(
        keyMask.getShape().equals(new Shape(rows, cached + fed)),
        "key mask shape "
            + keyMask.getShape()
            + ", expected ("
            + rows
            + ", "
            + (cached + fed)
            + ")");
    check(history == null || history.rows.size() == rows, "cache rows vs batch rows");
    long[] ids = tokens.toLongArray();
    long[] pos = positions.toLongArray();
    long[] mask = keyMask.toType(DataType.INT64, false).toLongArray();
    int vocab = config.vocabSize();
    float[] logits = new float[rows * fed * vocab];
    for (int b = 0; b < rows; b++) {
      List<Integer> seen = history == null ? new ArrayList<>() : history.rows.get(b);
      int unmaskedBefore = 0;
      for (int k = 0; k < cached; k++) {
        unmaskedBefore += (int) mask[b * (cached + fed) + k];
      }
      check(
          unmaskedBefore == seen.size(),
          "row "
              + b
              + ": mask over the cache shows "
              + unmaskedBefore
              + " real keys, the cache holds "
              + seen.size());
      for (int t = 0; t < fed; t++) {
        if (mask[b * (cached + fed) + cached + t] == 0) {
          continue;
        }
        check(
            pos[b * fed + t] == unmaskedBefore,
            "row "
                + b
                + " token "
                + t
                + ": position "
                + pos[b * fed + t]
                + ", expected "
                + unmaskedBefore);
        check(unmaskedBefore < config.contextLength(), "row " + b + ": past the context length");
        seen.add((int) ids[b * fed + t]);
        unmaskedBefore++;
        double[] scores = logProbs.apply(List.copyOf(seen));
        for (int v = 0; v < vocab; v++) {
          logits[(b * fed + t) * vocab + v] = (float) scores[v];
        }
      }
    }
    if (history != null) {
      history.length += fed;
    }
    return tokens.getManager().create(logits, new Shape(rows, fed, vocab));
  }

  private static void check(boolean ok, String problem) {
    if (!ok) {
      throw new IllegalStateException("CausalLm contract broken: " + problem);
    }
  }

  @Override
  public void close() {
    tokenizer.close();
  }

  /** The cache is each row's history of real tokens. */
  private static final class HistoryCache implements KvCache {
    private List<List<Integer>> rows = new ArrayList<>();
    private int length;

    HistoryCache(int batchSize) {
      for (int i = 0; i < batchSize; i++) {
        rows.add(new ArrayList<>());
      }
    }

    @Override
    public int length() {
      return length;
    }

    @Override
    public void keepRows(long[] keep) {
      List<List<Integer>> kept = new ArrayList<>();
      for (long row : keep) {
        kept.add(rows.get((int) row));
      }
      rows = kept;
    }

    @Override
    public void close() {}
  }
}
