package dev.infuse.jobs.llm;

import dev.infuse.jobs.run.JobFailedException;
import dev.infuse.jobs.run.RunCounts;
import java.util.Locale;

/**
 * The one check on a run's LLM outcome: when more than {@code llm.max_failure_fraction} of the
 * calls it made failed for good, the run fails, after everything it produced has been saved. The
 * failed calls are in {@code llm_calls} with their errors, and the next run retries them.
 */
public final class LlmFailures {
  private LlmFailures() {}

  /**
   * Returns {@code counts}, or throws when too many calls failed.
   *
   * @param what the calls, for the message: "LLM calls", "judge calls"
   */
  public static RunCounts check(
      String job, String what, LlmCallRunner.Outcome outcome, double ceiling, RunCounts counts) {
    if (outcome != null
        && outcome.called() > 0
        && (double) outcome.failed() / outcome.called() > ceiling) {
      throw new JobFailedException(
          String.format(
              Locale.ROOT,
              "%s: %d of %d %s failed, above llm.max_failure_fraction %s; they are in llm_calls"
                  + " with their errors and will be retried on the next run",
              job,
              outcome.failed(),
              outcome.called(),
              what,
              ceiling),
          counts);
    }
    return counts;
  }
}
