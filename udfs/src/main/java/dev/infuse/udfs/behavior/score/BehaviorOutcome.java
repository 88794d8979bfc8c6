package dev.infuse.udfs.behavior.score;

import dev.infuse.udfs.behavior.BehaviorType;
import java.util.Objects;

/**
 * One scored response.
 *
 * @param taskId the task's key
 * @param category the task's taxonomy category
 * @param gold the gold behaviour
 * @param predicted the behaviour read from the response; null when none could be read (missing)
 * @param contentCorrect {@link ContentScorer}'s verdict; null when there was nothing to check
 */
public record BehaviorOutcome(
    String taskId,
    String category,
    BehaviorType gold,
    BehaviorType predicted,
    Boolean contentCorrect) {
  public BehaviorOutcome {
    Objects.requireNonNull(taskId, "taskId");
    Objects.requireNonNull(category, "category");
    Objects.requireNonNull(gold, "gold");
  }

  /** Whether the predicted behaviour is the gold one (a missing one never is). */
  public boolean behaviorCorrect() {
    return predicted == gold;
  }
}
