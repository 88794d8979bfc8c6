package dev.infuse.jobs.generate;

import dev.infuse.jobs.llm.LlmCallRunner;
import dev.infuse.jobs.llm.LlmConfig;
import dev.infuse.jobs.run.JobRun;
import java.util.Locale;

/** The LLM line every generation run prints; {@link LlmCallRunner#details} records the same. */
final class GenerationCounts {
  private GenerationCounts() {}

  static void print(JobRun run, LlmCallRunner.Outcome outcome) {
    run.out()
        .printf(
            Locale.ROOT,
            "  llm %s: %d request(s), %d cached, %d called, %d failed, %d deferred by budget;"
                + " %d tokens in, %d out, est. $%.4f%n",
            run.config().section(LlmConfig.class).client().backend(),
            outcome.requested(),
            outcome.cached(),
            outcome.called(),
            outcome.failed(),
            outcome.deferredByBudget(),
            outcome.tokensIn(),
            outcome.tokensOut(),
            outcome.costUsd());
    if (outcome.deferredByTarget() > 0) {
      run.out()
          .printf(
              Locale.ROOT,
              "  %d request(s) left uncalled: the token target was reached%n",
              outcome.deferredByTarget());
    }
  }
}
