package dev.infuse.udfs.llm;

/**
 * Why one HTTP attempt failed, classified for the retry policy. It carries the server's {@code
 * Retry-After} so the backoff can honour it. No stack trace: it is a value, made per attempt.
 */
final class AttemptFailure extends RuntimeException {
  private static final long serialVersionUID = 1L;
  private final int httpStatus;
  private final boolean retryable;
  private final long retryAfterMillis;

  /**
   * @param httpStatus the status, 0 when there was none
   * @param retryAfterMillis the server's Retry-After, or -1 when it sent none
   */
  AttemptFailure(
      String message, int httpStatus, boolean retryable, long retryAfterMillis, Throwable cause) {
    super(message, cause, false, false);
    this.httpStatus = httpStatus;
    this.retryable = retryable;
    this.retryAfterMillis = retryAfterMillis;
  }

  int httpStatus() {
    return httpStatus;
  }

  boolean retryable() {
    return retryable;
  }

  long retryAfterMillis() {
    return retryAfterMillis;
  }
}
