package dev.infuse.jobs.generate;

import dev.infuse.jobs.JobRun;
import dev.infuse.jobs.RunCounts;
import dev.infuse.jobs.cli.JobFailedException;
import dev.infuse.jobs.llm.LlmCallRunner;
import java.util.Locale;

/**
 * LLM accounting every generation run prints and checks; {@link LlmCallRunner#details} records it.
 */
final class GenerationCounts {
  private GenerationCounts() {}

  static void print(JobRun run, LlmCallRunner.Outcome outcome, LlmCallRunner runner) {
    run.out()
        .printf(
            Locale.ROOT,
            "  llm %s: %d request(s), %d cached, %d called, %d failed, %d deferred by budget;"
                + " %d tokens in, %d out, est. $%.4f%n",
            run.config().llm().backend(),
            outcome.requested(),
            outcome.cached(),
            outcome.called(),
            outcome.failed(),
            outcome.deferredByBudget(),
            outcome.tokensIn(),
            outcome.tokensOut(),
            runner.cost(outcome));
  }

  /** Fails the run (its rows are already saved) when too many calls failed for good. */
  static RunCounts checkFailures(JobRun run, RunCounts counts, LlmCallRunner.Outcome outcome) {
    double ceiling = run.config().llm().maxFailureFraction();
    if (outcome.called() > 0 && (double) outcome.failed() / outcome.called() > ceiling) {
      throw new JobFailedException(
          String.format(
              Locale.ROOT,
              "%s: %d of %d LLM calls failed, above llm.max_failure_fraction"
                  + " %s; they are in llm_calls with their errors and will be retried on the next run",
              run.job(),
              outcome.failed(),
              outcome.called(),
              ceiling),
          counts);
    }
    return counts;
  }
}
