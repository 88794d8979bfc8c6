package dev.infuse.udfs.behavior.tasks;

import dev.infuse.udfs.behavior.GoldTarget;
import java.util.Map;
import java.util.Objects;

/**
 * A perturbation's result: the changed case, the gold target naming the change, and the change as
 * strings ({@code op}, {@code line}, …) for {@code behavior_tasks.construction}. The change is
 * complete: replaying it on the original gives {@code changed}.
 */
public record Perturbed(ClinicalCase changed, GoldTarget gold, Map<String, String> change) {
  /** The edit kinds a change records under {@code op}. */
  public static final String REPLACE = "replace";

  public static final String REMOVE_LINE = "remove_line";
  public static final String INSERT_LINE = "insert_line";

  public Perturbed {
    Objects.requireNonNull(changed, "changed");
    Objects.requireNonNull(gold, "gold");
    change = Map.copyOf(change);
  }
}
