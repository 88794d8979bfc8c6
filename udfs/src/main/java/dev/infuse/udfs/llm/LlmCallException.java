package dev.infuse.udfs.llm;

/**
 * A request that failed for good: retries exhausted, a non-retryable status, or the row timeout.
 * The message says what the server answered or what timed out; it never holds the API key.
 */
public final class LlmCallException extends RuntimeException {
  private static final long serialVersionUID = 1L;
  private final int attempts;
  private final int httpStatus;

  /**
   * @param httpStatus the last HTTP status, or 0 when there was none (timeout, connection error)
   */
  public LlmCallException(String message, int attempts, int httpStatus, Throwable cause) {
    super(message, cause);
    this.attempts = attempts;
    this.httpStatus = httpStatus;
  }

  public int attempts() {
    return attempts;
  }

  public int httpStatus() {
    return httpStatus;
  }
}
