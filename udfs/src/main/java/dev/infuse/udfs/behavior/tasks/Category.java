package dev.infuse.udfs.behavior.tasks;

import dev.infuse.udfs.behavior.BehaviorType;
import java.util.List;
import java.util.Objects;

/**
 * One taxonomy category: which behaviour it tests, which ingest formats its tasks are drawn from,
 * and which registered perturbations make them.
 *
 * @param name unique within the taxonomy; becomes {@code behavior_tasks.category}
 * @param type the behaviour the right response shows
 * @param description what the category tests, for people
 * @param sources ingest formats it draws from: {@code medec}, {@code agentclinic}, {@code
 *     aci-bench}, {@code medqa}
 * @param perturbations registry ids tried in a seeded order, the first that applies wins; empty for
 *     an unperturbed case
 * @param query the explicit question asked, or null when the assistant is only shown the case
 */
public record Category(
    String name,
    BehaviorType type,
    String description,
    List<String> sources,
    List<String> perturbations,
    String query) {
  public Category {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(type, "type");
    sources = List.copyOf(sources);
    perturbations = List.copyOf(perturbations);
  }

  public boolean drawsFrom(String source) {
    return sources.contains(source);
  }
}
