package dev.infuse.udfs.llm;

import dev.infuse.udfs.lm.LogLikelihood;
import dev.infuse.udfs.lm.LogLikelihoodEncoder;
import dev.infuse.udfs.lm.LogLikelihoodRequest;
import dev.infuse.udfs.lm.LogLikelihoodScorer;
import dev.infuse.udfs.lm.MultipleChoiceScore;
import dev.infuse.udfs.score.MultipleChoiceMetrics;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Log-likelihood requests for a model behind an OpenAI-compatible server, the way
 * lm-evaluation-harness's {@code local-completions} model builds them, and the multiple-choice
 * answer read off their results, the way {@link LogLikelihoodScorer} reads it off a model in this
 * JVM: the same tokens ({@link LogLikelihoodEncoder}, on the served model's tokenizer.json), the
 * same {@code acc} and {@code acc_norm} ({@link MultipleChoiceMetrics}).
 *
 * <p>A prompt is sent as the token ids of context and continuation ({@code tokenizedRequests}, the
 * harness's default) or as their text. With a {@code maxLength} (the served model's length), token
 * prompts keep their last {@code maxLength - 1} tokens as the harness does ({@code (context_enc +
 * continuation_enc)[-max_length:]}, one token being generated), and a text prompt that long is
 * refused, since text cannot be cut on the server's token boundaries.
 *
 * <p>Thread-safe if the encoding function is.
 */
public final class CompletionsLoglikelihood {
  private final String model;
  private final LogLikelihoodEncoder encoder;
  private final boolean tokenizedRequests;
  private final Integer maxLength;

  /**
   * @param model the served model name
   * @param encoder the served model's tokenizer with the BOS convention ({@code answer.add_bos})
   * @param tokenizedRequests send token ids (true) or text
   * @param maxLength the most tokens the server takes, generated one included; null for no limit
   */
  public CompletionsLoglikelihood(
      String model, LogLikelihoodEncoder encoder, boolean tokenizedRequests, Integer maxLength) {
    this.model = Objects.requireNonNull(model, "model");
    this.encoder = Objects.requireNonNull(encoder, "encoder");
    this.tokenizedRequests = tokenizedRequests;
    if (maxLength != null && maxLength < LoglikelihoodPrompt.MAX_TOKENS + 2) {
      throw new IllegalArgumentException(
          "max_length: got "
              + maxLength
              + ", expected at least "
              + (LoglikelihoodPrompt.MAX_TOKENS + 2));
    }
    this.maxLength = maxLength;
  }

  /**
   * The request for one (context, continuation) pair; {@code index} names it in errors.
   *
   * @param task carried along for the caller (not part of the request key)
   * @throws IllegalArgumentException when the pair encodes to nothing, or is longer than {@code
   *     maxLength} allows
   */
  public ChatRequest request(int index, LogLikelihoodRequest pair, Map<String, String> task) {
    LogLikelihoodEncoder.Encoded encoded = encoder.encode(index, pair);
    int context = encoded.context().length;
    int continuation = encoded.continuation().length;
    int limit = maxLength == null ? Integer.MAX_VALUE : maxLength - LoglikelihoodPrompt.MAX_TOKENS;
    LoglikelihoodPrompt prompt;
    if (tokenizedRequests) {
      long[] full = encoded.whole();
      if (full.length > limit) {
        if (continuation >= limit) {
          throw new IllegalArgumentException(
              "continuation of request "
                  + index
                  + ": "
                  + continuation
                  + " tokens, expected fewer than max_length "
                  + maxLength
                  + " - "
                  + LoglikelihoodPrompt.MAX_TOKENS
                  + " (a context token must precede it)");
        }
        int cut = full.length - limit;
        full = Arrays.copyOfRange(full, cut, full.length);
        context -= cut;
      }
      prompt = LoglikelihoodPrompt.ofTokens(full, context);
    } else {
      if (context + continuation > limit) {
        throw new IllegalArgumentException(
            "request "
                + index
                + ": "
                + (context + continuation)
                + " tokens, over max_length "
                + maxLength
                + " - "
                + LoglikelihoodPrompt.MAX_TOKENS
                + "; a text prompt cannot be cut on the server's tokens, expected"
                + " tokenized_requests: true to keep the last tokens, or a larger max_length");
      }
      prompt =
          LoglikelihoodPrompt.ofText(pair.context() + pair.continuation(), context, continuation);
    }
    return ChatRequest.forLoglikelihood(model, prompt, task);
  }

  /**
   * One request per option: {@code delimiter + choice} after {@code context}, as {@link
   * LogLikelihoodScorer#multipleChoice(String, List, String)} scores them.
   */
  public List<ChatRequest> multipleChoice(
      String context, List<String> choices, String delimiter, Map<String, String> task) {
    if (choices.isEmpty()) {
      throw new IllegalArgumentException("choices: got none, expected at least one option");
    }
    List<ChatRequest> requests = new ArrayList<>(choices.size());
    for (int i = 0; i < choices.size(); i++) {
      if (choices.get(i).isEmpty()) {
        throw new IllegalArgumentException(
            "choices: got an empty option, expected non-empty text (acc_norm divides by its length)");
      }
      requests.add(request(i, new LogLikelihoodRequest(context, delimiter + choices.get(i)), task));
    }
    return requests;
  }

  /**
   * {@code acc} and {@code acc_norm} over the options' results, in option order: the rule of {@link
   * LogLikelihoodScorer#multipleChoice}.
   */
  public static MultipleChoiceScore score(List<LoglikelihoodResult> results, List<String> choices) {
    List<LogLikelihood> scores = new ArrayList<>(results.size());
    double[] logLikelihoods = new double[results.size()];
    for (int i = 0; i < results.size(); i++) {
      scores.add(results.get(i).toLogLikelihood());
      logLikelihoods[i] = results.get(i).logprob();
    }
    return new MultipleChoiceScore(
        scores,
        MultipleChoiceMetrics.acc(logLikelihoods),
        MultipleChoiceMetrics.accNorm(logLikelihoods, choices));
  }
}
