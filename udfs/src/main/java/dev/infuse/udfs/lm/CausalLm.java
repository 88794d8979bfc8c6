package dev.infuse.udfs.lm;

import ai.djl.Device;
import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;

/**
 * A loaded decoder-only language model, whatever built it: Infuse's own DJL transformer or a
 * TorchScript export. Generation ({@code Generator}) and log-likelihood scoring ({@code
 * LogLikelihoodScorer}) are written against this interface only.
 *
 * <p>Thread safety: a model is shared by the tasks of one executor ({@code ExecutorModels}); each
 * caller creates its own {@link KvCache} and NDManager, and {@link #forward} is safe to call from
 * several threads at once.
 */
public interface CausalLm extends AutoCloseable {
  /** Sizes and special tokens. */
  LmConfig config();

  /** The tokenizer the model was trained with. */
  HuggingFaceTokenizer tokenizer();

  /** Where the weights live. */
  Device device();

  /**
   * Whether {@link #forward} can carry a {@link KvCache} across calls. A model that cannot is fed
   * the whole sequence on every call, with a null cache.
   */
  boolean supportsKvCache();

  /**
   * An empty cache for a batch of {@code batchSize} rows, its arrays attached to {@code manager}.
   */
  KvCache newCache(NDManager manager, int batchSize);

  /**
   * Feeds {@code tokens} and returns the logits at every fed position.
   *
   * @param tokens int64 [B, T], the new tokens of each row
   * @param positions int64 [B, T], each token's position in its own sequence (rows that are
   *     left-padded start later, so their first real token is still position 0)
   * @param keyMask int64 or boolean [B, P + T], 1 where a key may be attended to, over the P cached
   *     positions followed by the T new ones; padding is 0. Causality within the new tokens is the
   *     model's job.
   * @param cache the cache to read and extend, or null to attend to {@code tokens} alone
   * @return float32 logits [B, T, vocabSize], attached to {@code tokens}' manager
   */
  NDArray forward(NDArray tokens, NDArray positions, NDArray keyMask, KvCache cache);

  @Override
  void close();

  /**
   * A model's past keys and values for one batch. Opaque to callers; it grows with every {@link
   * CausalLm#forward} call and can be trimmed to the rows still decoding.
   */
  interface KvCache extends AutoCloseable {
    /** Positions cached so far (P). */
    int length();

    /** Keeps only the given batch rows, in that order, as the rows that remain decoding. */
    void keepRows(long[] rows);

    @Override
    void close();
  }
}
