package dev.infuse.udfs.behavior.score;

import java.util.Objects;

/** One panel run's outcome on one task. @param runId the run (model, seed, …) that produced it */
public record RunOutcome(String runId, BehaviorOutcome outcome) {
  public RunOutcome {
    Objects.requireNonNull(runId, "runId");
    Objects.requireNonNull(outcome, "outcome");
  }
}
