package dev.infuse.udfs.lm;

import java.util.Objects;

/**
 * The lm-evaluation-harness {@code loglikelihood} request: how likely is {@code continuation} after
 * {@code context}.
 */
public record LogLikelihoodRequest(String context, String continuation) {
  public LogLikelihoodRequest {
    Objects.requireNonNull(context, "context");
    Objects.requireNonNull(continuation, "continuation");
  }
}
