package dev.infuse.jobs.generate;

import dev.infuse.jobs.JobRun;
import dev.infuse.jobs.RunCounts;
import dev.infuse.jobs.cli.JobFailedException;
import dev.infuse.jobs.llm.LlmCallRunner;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/** LLM accounting every generation run records in {@code runs.counts}, prints, and checks. */
final class GenerationCounts {
  private GenerationCounts() {}

  static Map<String, Long> of(LlmCallRunner runner, LlmCallRunner.Outcome outcome) {
    Map<String, Long> details = new LinkedHashMap<>();
    details.put("llm.requests", outcome.requested());
    details.put("llm.cached", outcome.cached());
    details.put("llm.called", outcome.called());
    details.put("llm.failed", outcome.failed());
    details.put("llm.deferred_by_budget", outcome.deferredByBudget());
    details.put("llm.tokens_in", outcome.tokensIn());
    details.put("llm.tokens_out", outcome.tokensOut());
    details.put("llm.cost_usd_micros", Math.round(runner.cost(outcome) * 1e6));
    return details;
  }

  static void print(JobRun run, LlmCallRunner.Outcome outcome, LlmCallRunner runner) {
    run.out().printf(Locale.ROOT, "  llm %s: %d request(s), %d cached, %d called, %d failed, %d deferred by budget;"
            + " %d tokens in, %d out, est. $%.4f%n", run.config().llm().backend(), outcome.requested(), outcome.cached(),
        outcome.called(), outcome.failed(), outcome.deferredByBudget(), outcome.tokensIn(), outcome.tokensOut(),
        runner.cost(outcome));
  }

  /** Fails the run (its rows are already saved) when too many calls failed for good. */
  static RunCounts checkFailures(JobRun run, RunCounts counts, LlmCallRunner.Outcome outcome) {
    double ceiling = run.config().llm().maxFailureFraction();
    if (outcome.called() > 0 && (double) outcome.failed() / outcome.called() > ceiling) {
      throw new JobFailedException(String.format(Locale.ROOT, "%s: %d of %d LLM calls failed, above llm.max_failure_fraction"
          + " %s; they are in llm_calls with their errors and will be retried on the next run", run.job(), outcome.failed(),
          outcome.called(), ceiling), counts);
    }
    return counts;
  }
}
