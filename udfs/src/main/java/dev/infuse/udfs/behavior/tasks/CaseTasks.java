package dev.infuse.udfs.behavior.tasks;

import dev.infuse.udfs.behavior.BehaviorTask;
import dev.infuse.udfs.behavior.BehaviorType;
import dev.infuse.udfs.behavior.GoldTarget;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;

/**
 * Tasks from one structured case (an AgentClinic OSCE case or an ACI-BENCH dialogue), one per
 * category drawing from the source: a proactive category tries its perturbations in a seeded order
 * and the first that applies makes the task; a restraint category shows the case unchanged; {@code
 * differential_diagnosis} asks for the case's diagnosis when the source gives one.
 */
final class CaseTasks {
  static final String DIAGNOSIS_CATEGORY = "differential_diagnosis";

  private CaseTasks() {}

  static List<BehaviorTask> build(
      Taxonomy taxonomy,
      Perturbations perturbations,
      TaskRecipe recipe,
      String source,
      String recordId,
      ClinicalCase original,
      String diagnosis) {
    List<BehaviorTask> tasks = new ArrayList<>();
    for (Category category : taxonomy.categories()) {
      if (!category.drawsFrom(source)) {
        continue;
      }
      SplittableRandom random = recipe.random(recordId, category.name());
      if (category.type() == BehaviorType.PROACTIVE) {
        perturbed(category, perturbations, recipe, source, recordId, original, random)
            .ifPresent(tasks::add);
      } else if (category.type() == BehaviorType.RESTRAINT) {
        tasks.add(
            recipe.task(
                category,
                source,
                recordId,
                original.toTurns(),
                GoldTarget.none(),
                TaskRecipe.Generator.CASE_UNPERTURBED,
                null,
                null,
                null));
      } else if (category.name().equals(DIAGNOSIS_CATEGORY) && diagnosis != null) {
        tasks.add(
            recipe.task(
                category,
                source,
                recordId,
                original.toTurns(),
                GoldTarget.answer(diagnosis, diagnosis),
                TaskRecipe.Generator.DIAGNOSIS,
                null,
                null,
                null));
      }
    }
    return tasks;
  }

  private static Optional<BehaviorTask> perturbed(
      Category category,
      Perturbations perturbations,
      TaskRecipe recipe,
      String source,
      String recordId,
      ClinicalCase original,
      SplittableRandom random) {
    List<String> order = new ArrayList<>(category.perturbations());
    // Fisher–Yates from the task's own stream: the seed picks which perturbation is tried first
    for (int i = order.size() - 1; i > 0; i--) {
      int j = random.nextInt(i + 1);
      order.set(i, order.set(j, order.get(i)));
    }
    for (String id : order) {
      Perturbation perturbation = perturbations.byId(id);
      Optional<Perturbed> result = perturbation.apply(original, random);
      if (result.isPresent()) {
        Perturbed p = result.get();
        return Optional.of(
            recipe.task(
                category,
                source,
                recordId,
                p.changed().toTurns(),
                p.gold(),
                TaskRecipe.Generator.CASE_PERTURBATION,
                perturbation,
                p.change(),
                null));
      }
    }
    return Optional.empty();
  }
}
