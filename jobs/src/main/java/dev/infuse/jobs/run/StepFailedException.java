package dev.infuse.jobs.run;

/**
 * A step of a {@link RecordedSteps} chain failed: the chain stops. The step has been recorded as
 * failed in {@code runs} and its error printed.
 */
public final class StepFailedException extends RuntimeException {
  private static final long serialVersionUID = 1L;
  private final RunStatus status;

  StepFailedException(String step, RunStatus status) {
    super(step + " " + (status == RunStatus.INVALID_CONFIG ? "had an invalid config" : "failed"));
    this.status = status;
  }

  /** How the step ended: {@link RunStatus#FAILED} or {@link RunStatus#INVALID_CONFIG}. */
  public RunStatus status() {
    return status;
  }
}
