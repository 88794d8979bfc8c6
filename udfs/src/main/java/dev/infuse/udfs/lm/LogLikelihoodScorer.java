package dev.infuse.udfs.lm;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.Shape;
import dev.infuse.udfs.score.MultipleChoiceMetrics;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;

/**
 * The lm-evaluation-harness {@code loglikelihood} request type over any {@link CausalLm}, and
 * multiple-choice scoring ({@code acc}, {@code acc_norm}) built on it, so benchmark numbers
 * computed here line up with the harness's.
 *
 * <p>Tokenization follows the harness's {@code _encode_pair} ({@link LogLikelihoodEncoder}, shared
 * with the completions-API path): trailing whitespace of the context moves to the front of the
 * continuation; the continuation's tokens are those of {@code encode(context + continuation)} after
 * the first {@code len(encode(context))}; an empty context is the EOS token. Encoding adds no
 * special tokens, unless a BOS id is given ({@link AddBos}, the harness from v0.4.9.2): then both
 * encodings start with BOS (never twice), so the context gains it and the continuation's tokens are
 * unchanged, and an empty context is {@code [BOS]} (a continuation that starts with BOS gives its
 * BOS to the context). The model input is {@code (context + continuation)[-(contextLength +
 * 1):][:-1]}: a long context keeps its last tokens. Requests are batched (left-padded, positions
 * from 0 in each row) and scored without a KV cache.
 *
 * <p>Thread-safe if the model is.
 */
public final class LogLikelihoodScorer {
  /** The harness's default {@code target_delimiter} between a question and an option. */
  public static final String DEFAULT_DELIMITER = " ";

  private final CausalLm model;
  private final int maxBatchRows;
  private final Integer bos;
  private final LogLikelihoodEncoder encoder;

  /**
   * Without BOS (the harness before v0.4.9.2).
   *
   * @param maxBatchRows the most requests scored in one forward call
   */
  public LogLikelihoodScorer(CausalLm model, int maxBatchRows) {
    this(model, maxBatchRows, null);
  }

  /**
   * @param maxBatchRows the most requests scored in one forward call
   * @param bosTokenId the BOS put before every context ({@link AddBos#resolve}); null for none
   */
  public LogLikelihoodScorer(CausalLm model, int maxBatchRows, Integer bosTokenId) {
    this.model = Objects.requireNonNull(model, "model");
    if (bosTokenId != null && (bosTokenId < 0 || bosTokenId >= model.config().vocabSize())) {
      throw new IllegalArgumentException(
          "BOS token id: got "
              + bosTokenId
              + ", expected 0.."
              + (model.config().vocabSize() - 1)
              + " (the model's vocabulary)");
    }
    this.bos = bosTokenId;
    this.encoder =
        new LogLikelihoodEncoder(
            text -> TokenIds.encode(model.tokenizer(), text),
            bosTokenId,
            model.config().eosTokenId());
    if (maxBatchRows < 1) {
      throw new IllegalArgumentException(
          "max batch rows: got " + maxBatchRows + ", expected 1 or more");
    }
    this.maxBatchRows = maxBatchRows;
  }

  /** Scores every request; results in request order. */
  public List<LogLikelihood> score(List<LogLikelihoodRequest> requests) {
    List<Pair> pairs = new ArrayList<>(requests.size());
    for (int i = 0; i < requests.size(); i++) {
      pairs.add(encodePair(i, requests.get(i)));
    }
    List<Pair> byLength = new ArrayList<>(pairs);
    byLength.sort(Comparator.comparingInt(pair -> pair.input.length));
    LogLikelihood[] results = new LogLikelihood[pairs.size()];
    for (int start = 0; start < byLength.size(); start += maxBatchRows) {
      scoreBatch(byLength.subList(start, Math.min(byLength.size(), start + maxBatchRows)), results);
    }
    return Arrays.asList(results);
  }

  /**
   * A multiple-choice question with the harness's default delimiter, a space, before each option.
   */
  public MultipleChoiceScore multipleChoice(String context, List<String> choices) {
    return multipleChoice(context, choices, DEFAULT_DELIMITER);
  }

  /**
   * Scores {@code delimiter + choice} after {@code context} for every choice and picks {@code acc}
   * and {@code acc_norm} exactly as the harness's {@code process_results} does.
   */
  public MultipleChoiceScore multipleChoice(
      String context, List<String> choices, String delimiter) {
    if (choices.isEmpty()) {
      throw new IllegalArgumentException("choices: got none, expected at least one option");
    }
    List<LogLikelihoodRequest> requests = new ArrayList<>(choices.size());
    for (String choice : choices) {
      if (choice.isEmpty()) {
        throw new IllegalArgumentException(
            "choices: got an empty option, expected non-empty text (acc_norm divides by its length)");
      }
      requests.add(new LogLikelihoodRequest(context, delimiter + choice));
    }
    List<LogLikelihood> scores = score(requests);
    double[] logLikelihoods = new double[scores.size()];
    for (int i = 0; i < logLikelihoods.length; i++) {
      logLikelihoods[i] = scores.get(i).logLikelihood();
    }
    // The selection rule is shared with the score job, which recomputes acc_norm from stored option
    // scores.
    return new MultipleChoiceScore(
        scores,
        MultipleChoiceMetrics.acc(logLikelihoods),
        MultipleChoiceMetrics.accNorm(logLikelihoods, choices));
  }

  /** The harness's {@code _encode_pair}, then its left truncation to the context length. */
  Pair encodePair(int index, LogLikelihoodRequest request) {
    LogLikelihoodEncoder.Encoded encoded = encoder.encode(index, request);
    long[] continuationIds = encoded.continuation();
    int contextLength = model.config().contextLength();
    if (continuationIds.length > contextLength) {
      throw new IllegalArgumentException(
          "continuation of request "
              + index
              + ": "
              + continuationIds.length
              + " tokens, expected at most the model's context length "
              + contextLength);
    }
    long[] full = encoded.whole();
    int from = Math.max(0, full.length - (contextLength + 1));
    long[] input = Arrays.copyOfRange(full, from, full.length - 1);
    return new Pair(index, input, continuationIds);
  }

  /** The BOS put before every context; null for none. */
  public Integer bosTokenId() {
    return bos;
  }

  private void scoreBatch(List<Pair> batch, LogLikelihood[] results) {
    int window = 0;
    List<long[]> inputs = new ArrayList<>(batch.size());
    for (Pair pair : batch) {
      window = Math.max(window, pair.continuation.length);
      inputs.add(pair.input);
    }
    try (NDManager manager = NDManager.newBaseManager(model.device(), Generator.ENGINE)) {
      LeftPaddedBatch input = LeftPaddedBatch.of(manager, inputs, model.config().padTokenId());
      long width = input.tokens().getShape().get(1);
      // Left padding puts every continuation in the last columns; score only those.
      NDArray logProbs =
          model
              .forward(input.tokens(), input.positions(), input.keyMask(), null)
              .get(new NDIndex(":, {}:, :", width - window))
              .logSoftmax(2);
      long[] targets = new long[batch.size() * window];
      for (int b = 0; b < batch.size(); b++) {
        long[] continuation = batch.get(b).continuation;
        System.arraycopy(
            continuation,
            0,
            targets,
            b * window + window - continuation.length,
            continuation.length);
      }
      NDArray targetArray = manager.create(targets, new Shape(batch.size(), window, 1));
      float[] picked = logProbs.gather(targetArray, 2).toFloatArray();
      long[] argmax = logProbs.argMax(2).toLongArray();
      for (int b = 0; b < batch.size(); b++) {
        Pair pair = batch.get(b);
        double sum = 0;
        boolean greedy = true;
        for (int j = window - pair.continuation.length; j < window; j++) {
          sum += picked[b * window + j];
          greedy &= argmax[b * window + j] == targets[b * window + j];
        }
        results[pair.index] = new LogLikelihood(sum, greedy, pair.continuation.length);
      }
    }
  }

  /** One request's tokens: the model input and the continuation it is scored on. */
  record Pair(int index, long[] input, long[] continuation) {}
}
