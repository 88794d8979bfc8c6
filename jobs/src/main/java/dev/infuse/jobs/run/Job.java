package dev.infuse.jobs.run;

/**
 * A job's work inside a run: read, transform, write, and say what was read, written and
 * quarantined. {@link RecordedRun} records it in {@code runs} whatever happens.
 */
@FunctionalInterface
public interface Job {
  /**
   * Does the work; throw {@link JobFailedException} to fail with the counts already known, or a
   * {@code ConfigException} when the config cannot be used.
   */
  RunCounts run(JobRun run);
}
