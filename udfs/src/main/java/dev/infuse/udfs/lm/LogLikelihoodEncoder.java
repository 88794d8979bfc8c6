package dev.infuse.udfs.lm;

import java.util.Arrays;
import java.util.Objects;
import java.util.function.Function;

/**
 * lm-evaluation-harness's {@code _encode_pair}: a {@link LogLikelihoodRequest} as context tokens
 * and continuation tokens. The one implementation both log-likelihood paths share: {@link
 * LogLikelihoodScorer} (a model in this JVM) and the completions-API path of the LLM layer (a model
 * behind an OpenAI-compatible server, whose tokenizer.json is the endpoint's {@code tokenizer}).
 *
 * <p>Trailing whitespace of the context moves to the front of the continuation; the continuation's
 * tokens are those of {@code encode(context + continuation)} after the first {@code
 * len(encode(context))}; encoding adds no special tokens, unless a BOS id is given ({@link
 * AddBos}): then both encodings start with BOS (never twice). An empty context is {@code [BOS]}
 * with a BOS (a continuation that starts with BOS gives it to the context), else {@code [EOS]}.
 *
 * <p>Thread-safe if the encoding function is.
 */
public final class LogLikelihoodEncoder {
  private final Function<String, long[]> encode;
  private final Integer bos;
  private final Integer eos;

  /**
   * @param encode a text's token ids without special tokens, never truncated
   * @param bosTokenId the BOS put before every context; null for none
   * @param eosTokenId the EOS that stands for an empty context without BOS; null when unknown (an
   *     empty context is then refused)
   */
  public LogLikelihoodEncoder(
      Function<String, long[]> encode, Integer bosTokenId, Integer eosTokenId) {
    this.encode = Objects.requireNonNull(encode, "encode");
    this.bos = bosTokenId;
    this.eos = eosTokenId;
  }

  /**
   * One request's tokens.
   *
   * @param context the context's token ids (BOS first when there is one)
   * @param continuation the continuation's token ids
   */
  public record Encoded(long[] context, long[] continuation) {
    /** Context then continuation: what the model reads. */
    public long[] whole() {
      long[] full = Arrays.copyOf(context, context.length + continuation.length);
      System.arraycopy(continuation, 0, full, context.length, continuation.length);
      return full;
    }
  }

  /** The BOS put before every context; null for none. */
  public Integer bosTokenId() {
    return bos;
  }

  /**
   * Encodes request {@code index} (the index only names it in errors).
   *
   * @throws IllegalArgumentException when the context or the continuation encodes to no tokens, or
   *     the context is empty and there is neither BOS nor EOS to stand for it
   */
  public Encoded encode(int index, LogLikelihoodRequest request) {
    String context = request.context();
    String continuation = request.continuation();
    long[] contextIds;
    long[] continuationIds;
    if (context.isEmpty() && bos != null) {
      continuationIds = encode.apply(continuation);
      // The harness's loglikelihood(): reuse a leading BOS of the continuation as the context.
      if (continuationIds.length > 0 && continuationIds[0] == bos) {
        continuationIds = Arrays.copyOfRange(continuationIds, 1, continuationIds.length);
      }
      contextIds = new long[] {bos};
    } else if (context.isEmpty()) {
      if (eos == null) {
        throw new IllegalArgumentException(
            "context of request "
                + index
                + ": empty, and the tokenizer has no BOS and no known EOS to start from; expected a"
                + " non-empty context");
      }
      contextIds = new long[] {eos};
      continuationIds = encode.apply(continuation);
    } else {
      int end = context.length();
      while (end > 0 && isPythonSpace(context.charAt(end - 1))) {
        end--;
      }
      continuation = context.substring(end) + continuation;
      context = context.substring(0, end);
      long[] whole = withBos(encode.apply(context + continuation));
      contextIds = withBos(encode.apply(context));
      continuationIds =
          Arrays.copyOfRange(whole, Math.min(contextIds.length, whole.length), whole.length);
    }
    if (contextIds.length == 0) {
      // The harness asserts the same: nothing would predict the first continuation token.
      throw new IllegalArgumentException(
          "context of request "
              + index
              + ": encodes to no tokens once its trailing"
              + " whitespace moves to the continuation, expected text, or an empty context to start from EOS");
    }
    if (continuationIds.length == 0) {
      throw new IllegalArgumentException(
          "continuation of request "
              + index
              + ": encodes to no tokens after the context '"
              + context
              + "', expected at least one");
    }
    return new Encoded(contextIds, continuationIds);
  }

  /** The BOS before {@code ids}, unless there is none to add or the text already starts with it. */
  private long[] withBos(long[] ids) {
    if (bos == null || ids.length > 0 && ids[0] == bos) {
      return ids;
    }
    long[] out = new long[ids.length + 1];
    out[0] = bos;
    System.arraycopy(ids, 0, out, 1, ids.length);
    return out;
  }

  /**
   * Python's {@code str.isspace}, which {@code rstrip()} strips: Java whitespace plus the no-break
   * spaces and NEL (U+0085), which Python counts as a line break and Java as a control character.
   * Every such character is in the BMP, so testing UTF-16 units is exact.
   */
  static boolean isPythonSpace(char c) {
    return Character.isWhitespace(c) || Character.isSpaceChar(c) || c == '\u0085';
  }
}
