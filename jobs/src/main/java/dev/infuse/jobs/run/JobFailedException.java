package dev.infuse.jobs.run;

/** A run that did its work but must exit non-zero, such as ingest over its bad-record ceiling. */
public final class JobFailedException extends RuntimeException {
  private static final long serialVersionUID = 1L;
  private final transient RunCounts counts;

  public JobFailedException(String message, RunCounts counts) {
    super(message);
    this.counts = counts;
  }

  public RunCounts counts() {
    return counts;
  }
}
