package dev.infuse.udfs.maporl;

import java.util.Objects;
import java.util.Set;

/**
 * The answer read from one response, and whether it could be read.
 *
 * @param answer the canonical answer ({@code 1234}, {@code neutral}, {@code B}), or {@link
 *     #INVALID} when {@code status} is not {@link #OK}
 * @param status {@link #OK}, {@link #NO_BOXED} or {@link #UNPARSEABLE}
 */
public record ExtractedAnswer(String answer, String status) {
  /** The answer was read. */
  public static final String OK = "ok";

  /** The response holds no complete {@code \boxed{...}}. */
  public static final String NO_BOXED = "no_boxed";

  /** The last box holds nothing that is an answer of the question's kind. */
  public static final String UNPARSEABLE = "unparseable";

  /** The answer of a response that could not be read, as the reference writes it. */
  public static final String INVALID = "invalid";

  private static final Set<String> STATUSES = Set.of(OK, NO_BOXED, UNPARSEABLE);

  public ExtractedAnswer {
    Objects.requireNonNull(answer, "answer");
    if (!STATUSES.contains(status)) {
      throw new IllegalArgumentException(
          "status: got " + status + ", expected ok, no_boxed or unparseable");
    }
    if (!status.equals(OK) && !answer.equals(INVALID)) {
      throw new IllegalArgumentException(
          "answer: got " + answer + " with status " + status + ", expected " + INVALID);
    }
    if (status.equals(OK) && answer.equals(INVALID)) {
      throw new IllegalArgumentException("answer: got invalid with status ok, expected an answer");
    }
  }

  /** A readable answer. */
  public static ExtractedAnswer ok(String answer) {
    return new ExtractedAnswer(answer, OK);
  }

  /** An unreadable response, with why. */
  public static ExtractedAnswer invalid(String status) {
    return new ExtractedAnswer(INVALID, status);
  }

  /** Whether the answer was read. */
  public boolean valid() {
    return status.equals(OK);
  }
}
