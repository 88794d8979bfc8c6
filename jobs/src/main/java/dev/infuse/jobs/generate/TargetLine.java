package dev.infuse.jobs.generate;

import dev.infuse.jobs.llm.LlmCallRunner;
import dev.infuse.jobs.run.JobRun;
import java.util.Locale;

/** The line a generation run with a token target prints: reached or not, and what is left. */
final class TargetLine {
  private TargetLine() {}

  /**
   * @param table the table whose unique synthetic tokens are counted
   * @param more what to raise when every planned request is done and the target is still not met
   */
  static void print(
      JobRun run, String table, LlmCallRunner.Outcome outcome, long target, String more) {
    long tokens = outcome.goalProgress();
    if (tokens >= target) {
      run.out()
          .printf(
              Locale.ROOT,
              "  target reached: %d unique synthetic tokens in %s (target %d); %d request(s) left"
                  + " for a larger target%n",
              tokens,
              table,
              target,
              outcome.deferredByTarget());
    } else if (outcome.deferredByBudget() > 0) {
      run.out()
          .printf(
              Locale.ROOT,
              "  target not reached: %d of %d unique synthetic tokens in %s; llm.max_total_tokens"
                  + " stopped the run with %d request(s) left, rerun to go on%n",
              tokens,
              target,
              table,
              outcome.deferredByBudget());
    } else {
      run.out()
          .printf(
              Locale.ROOT,
              "  target not reached: %d of %d unique synthetic tokens in %s, and every planned"
                  + " request is done; %s for more%n",
              tokens,
              target,
              table,
              more);
    }
  }
}
