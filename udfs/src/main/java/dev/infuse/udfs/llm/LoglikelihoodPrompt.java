package dev.infuse.udfs.llm;

import java.util.ArrayList;
import java.util.List;

/**
 * A log-likelihood request over the OpenAI completions API, as lm-evaluation-harness's {@code
 * local-completions} model sends it: {@code POST /v1/completions} with the context and continuation
 * as the prompt, {@code echo: true}, {@code logprobs: 1}, {@code max_tokens: 1} and {@code
 * temperature: 0}. The server returns a log-probability for every prompt token; the continuation's
 * are the {@code continuationTokens} after the first {@code contextTokens}, which the client
 * counted with the model's own tokenizer.json. The one generated token is never counted.
 *
 * <p>{@code max_tokens} is 1, not 0, as in the harness: every server that returns prompt
 * log-probabilities accepts 1, some refuse 0, and the answer is cut by the prompt's length, so the
 * generated token only costs one decoding step.
 *
 * @param tokens the prompt as token ids (the harness's {@code tokenized_requests=True}, its
 *     default): exactly the tokens scored, BOS included when there is one; null to send {@code
 *     text}
 * @param text the prompt as text, context then continuation ({@code tokenized_requests=False}),
 *     which the server tokenizes, adding its own special tokens; null when {@code tokens} is sent
 * @param contextTokens how many prompt tokens come before the continuation (the harness's {@code
 *     ctxlen}); at least 1, since the first token has no log-probability
 * @param continuationTokens how many prompt tokens the continuation is; at least 1
 */
public record LoglikelihoodPrompt(
    List<Long> tokens, String text, int contextTokens, int continuationTokens) {

  /** What the request asks for per token: the harness asks for 1. */
  public static final int LOGPROBS = 1;

  /** The tokens generated after the prompt (ignored): the harness asks for 1. */
  public static final int MAX_TOKENS = 1;

  /**
   * In the error of a call whose server returns no prompt log-probabilities (it ignores {@code
   * echo}, or fills them with nulls), so that a job can tell that failure apart.
   */
  public static final String NO_PROMPT_LOGPROBS = "returned no log-probabilities for the prompt";

  public LoglikelihoodPrompt {
    if ((tokens == null) == (text == null)) {
      throw new IllegalArgumentException(
          "loglikelihood prompt: got "
              + (tokens == null ? "neither tokens nor text" : "both tokens and text")
              + ", expected exactly one");
    }
    if (contextTokens < 1) {
      throw new IllegalArgumentException(
          "loglikelihood prompt: got " + contextTokens + " context tokens, expected at least 1");
    }
    if (continuationTokens < 1) {
      throw new IllegalArgumentException(
          "loglikelihood prompt: got "
              + continuationTokens
              + " continuation tokens, expected at least 1");
    }
    if (tokens != null && tokens.size() != contextTokens + continuationTokens) {
      throw new IllegalArgumentException(
          "loglikelihood prompt: got "
              + tokens.size()
              + " tokens for "
              + contextTokens
              + " context and "
              + continuationTokens
              + " continuation tokens, expected their sum");
    }
    tokens = tokens == null ? null : List.copyOf(tokens);
  }

  /** The prompt as token ids. */
  public static LoglikelihoodPrompt ofTokens(long[] ids, int contextTokens) {
    List<Long> list = new ArrayList<>(ids.length);
    for (long id : ids) {
      list.add(id);
    }
    return new LoglikelihoodPrompt(list, null, contextTokens, ids.length - contextTokens);
  }

  /** The prompt as text, which should tokenize to {@code contextTokens + continuationTokens}. */
  public static LoglikelihoodPrompt ofText(String text, int contextTokens, int continuationTokens) {
    return new LoglikelihoodPrompt(null, text, contextTokens, continuationTokens);
  }

  /** The tokens the server should count in the prompt. */
  public int promptTokens() {
    return contextTokens + continuationTokens;
  }
}
