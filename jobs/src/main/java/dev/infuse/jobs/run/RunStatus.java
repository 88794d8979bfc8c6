package dev.infuse.jobs.run;

/** How a recorded run ended; the CLI turns it into an exit code. */
public enum RunStatus {
  /** The job did its work and its counts reconcile. */
  SUCCEEDED,
  /** The job failed: an error, or a ceiling such as too many bad records or failed LLM calls. */
  FAILED,
  /** The config could not be used; nothing was done. */
  INVALID_CONFIG
}
