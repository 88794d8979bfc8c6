package dev.infuse.udfs.behavior.tasks;

import dev.infuse.udfs.behavior.BehaviorTask;
import dev.infuse.udfs.behavior.GoldTarget;
import dev.infuse.udfs.behavior.Turn;
import dev.infuse.udfs.common.Keys;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * What every generator shares: the seed, the stable task id and the per-record random stream. The
 * stream is derived from (seed, record, category) alone, never shared, so a task rebuilds the same
 * whatever else is built alongside it.
 */
final class TaskRecipe {
  private final long seed;

  TaskRecipe(long seed) {
    this.seed = seed;
  }

  long seed() {
    return seed;
  }

  SplittableRandom random(String recordId, String category) {
    return new SplittableRandom(
        Long.parseUnsignedLong(
            Keys.shortHash("behavior", Long.toString(seed), recordId, category), 16));
  }

  /**
   * A task; {@code construction} gets {@code generator} and {@code generator_version}, the
   * generator's {@code details}, and the perturbation's change under {@code change.*} keys.
   */
  BehaviorTask task(
      Category category,
      String source,
      String recordId,
      List<Turn> context,
      GoldTarget gold,
      Generator generator,
      Perturbation perturbation,
      Map<String, String> change,
      Map<String, String> details) {
    Map<String, String> construction = new LinkedHashMap<>();
    construction.put("generator", generator.id());
    construction.put("generator_version", Integer.toString(generator.version()));
    if (details != null) {
      construction.putAll(details);
    }
    if (change != null) {
      change.forEach((k, v) -> construction.put("change." + k, v));
    }
    String perturbationId = perturbation == null ? null : perturbation.id();
    Integer perturbationVersion = perturbation == null ? null : perturbation.version();
    String taskId =
        Keys.shortHash(
            recordId,
            category.name(),
            perturbationId,
            perturbationVersion == null ? null : perturbationVersion.toString(),
            Long.toString(seed));
    return new BehaviorTask(
        taskId,
        category.name(),
        category.type(),
        source,
        recordId,
        context,
        category.query(),
        category.type(),
        gold,
        construction,
        perturbationId,
        perturbationVersion,
        seed);
  }

  /** The generators, each with a version bumped whenever the tasks it makes change. */
  enum Generator {
    MEDEC("medec-annotation", 1),
    CASE_PERTURBATION("case-perturbation", 1),
    CASE_UNPERTURBED("case-unperturbed", 1),
    DIAGNOSIS("case-diagnosis", 1),
    TEMPORAL("note-temporal-order", 1),
    MEDQA("medqa-question", 1);

    private final String id;
    private final int version;

    Generator(String id, int version) {
      this.id = id;
      this.version = version;
    }

    String id() {
      return id;
    }

    int version() {
      return version;
    }
  }
}
