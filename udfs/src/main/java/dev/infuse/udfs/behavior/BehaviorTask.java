package dev.infuse.udfs.behavior;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One row of {@code behavior_tasks}: a clinical context, the query asked in it (if any), and the
 * behaviour the right response shows, known by construction.
 *
 * @param taskId stable key: a hash of source record, category, perturbation and seed
 * @param category the taxonomy category ({@code error_correction}, {@code restraint}, …)
 * @param type the category's behaviour type; equals {@link #goldBehavior} in every default category
 * @param source the ingest format it came from: {@code medec}, {@code agentclinic}, {@code
 *     aci-bench}, {@code medqa}
 * @param sourceRecordId the source row's key ({@code documents.doc_id} or {@code
 *     questions.question_id})
 * @param context the turns the assistant sees, in order; a note is one {@link Turn#NOTE} turn
 * @param query the explicit question asked of the assistant, or null when it is only shown the case
 * @param goldBehavior what the assistant should do
 * @param goldTarget what the right response contains
 * @param construction how it was built, as strings (the change made, the item touched, the
 *     generator's version, …)
 * @param perturbationId the registry id of the perturbation applied, or null for an unperturbed
 *     case
 * @param perturbationVersion that perturbation's version, or null
 * @param seed the seed the task was built with; the same source and seed rebuild the same task
 */
public record BehaviorTask(
    String taskId,
    String category,
    BehaviorType type,
    String source,
    String sourceRecordId,
    List<Turn> context,
    String query,
    BehaviorType goldBehavior,
    GoldTarget goldTarget,
    Map<String, String> construction,
    String perturbationId,
    Integer perturbationVersion,
    long seed) {
  public BehaviorTask {
    Objects.requireNonNull(taskId, "taskId");
    Objects.requireNonNull(category, "category");
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(source, "source");
    Objects.requireNonNull(sourceRecordId, "sourceRecordId");
    Objects.requireNonNull(goldBehavior, "goldBehavior");
    Objects.requireNonNull(goldTarget, "goldTarget");
    if (context == null || context.isEmpty()) {
      throw new IllegalArgumentException("context: got no turns, expected at least one");
    }
    context = List.copyOf(context);
    construction = construction == null ? Map.of() : Map.copyOf(construction);
    if ((perturbationId == null) != (perturbationVersion == null)) {
      throw new IllegalArgumentException(
          "perturbation: got id "
              + perturbationId
              + " and version "
              + perturbationVersion
              + ", expected both or neither");
    }
  }
}
