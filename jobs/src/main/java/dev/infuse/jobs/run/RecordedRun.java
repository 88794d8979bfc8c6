package dev.infuse.jobs.run;

import dev.infuse.jobs.config.ConfigException;
import dev.infuse.jobs.spark.ProgressReporter;
import java.io.PrintWriter;

/**
 * The life cycle of one recorded run: report progress while the job works, then append its row to
 * {@code runs}, succeeded or failed, whatever happened. Every job command and every step of a chain
 * ({@link RecordedSteps}) runs through here.
 */
public final class RecordedRun {
  private RecordedRun() {}

  /**
   * Runs {@code job} inside {@code run}'s session and records the outcome. Errors are printed to
   * the run's error stream, never thrown.
   */
  public static RunStatus execute(JobRun run, Job job) {
    PrintWriter err = run.err();
    try (AutoCloseable progress =
        ProgressReporter.start(
            run.spark().sparkContext(),
            run.job(),
            run.config().run().progressIntervalSeconds(),
            err)) {
      RunCounts counts = job.run(run);
      run.succeed(counts);
      run.out().println("  run_id " + run.runId());
      run.out().flush();
      return RunStatus.SUCCEEDED;
    } catch (JobFailedException e) {
      recordFailure(run, e.counts(), e.getMessage());
      err.println("error: " + e.getMessage());
      return RunStatus.FAILED;
    } catch (ConfigException e) {
      recordFailure(run, RunCounts.none(), e.getMessage());
      err.println("error: " + e.getMessage());
      return RunStatus.INVALID_CONFIG;
    } catch (Exception e) {
      recordFailure(run, RunCounts.none(), e.toString());
      err.println("error: " + run.job() + " failed: " + e);
      e.printStackTrace(err);
      return RunStatus.FAILED;
    } finally {
      err.flush();
    }
  }

  /** Records {@code run} as failed; a run that cannot be recorded is warned about, not thrown. */
  static void recordFailure(JobRun run, RunCounts counts, String error) {
    try {
      run.fail(counts, error);
    } catch (RuntimeException e) {
      run.err().println("warning: could not record the failed run in runs: " + e);
    }
  }
}
