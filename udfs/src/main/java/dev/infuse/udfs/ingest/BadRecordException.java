package dev.infuse.udfs.ingest;

/**
 * Thrown inside a reader when a record cannot become items. It never leaves {@code read}: the
 * reader catches it per record and turns the reason into a {@link Rejection}, so one bad record
 * costs only itself. Public because the behaviour task builders reject source rows the same way.
 */
public final class BadRecordException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public BadRecordException(String reason) {
    super(reason, null, false, false);
  }

  /** What is wrong, naming the field and the expected value. */
  public String reason() {
    return getMessage();
  }
}
