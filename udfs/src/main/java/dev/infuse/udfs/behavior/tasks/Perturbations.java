package dev.infuse.udfs.behavior.tasks;

import dev.infuse.udfs.common.Registry;
import java.util.Set;

/**
 * The perturbation registry: ids are what the taxonomy names. Registering an id twice fails, and an
 * unknown id fails with the nearest id and the list of known ones.
 */
public final class Perturbations {
  private static final Perturbations DEFAULTS =
      of(new Omission(), new LabRangeError(), new DrugSwapError(), new Conflict());

  private final Registry<Perturbation> registry = new Registry<>("perturbation");

  private Perturbations() {}

  /** A registry of these perturbations; fixed once built, so a shared one cannot be changed. */
  public static Perturbations of(Perturbation... perturbations) {
    Perturbations built = new Perturbations();
    for (Perturbation p : perturbations) {
      built.registry.register(p.id(), p);
    }
    return built;
  }

  /** omission, error_lab_range, error_drug_swap and conflict, all at version 1. */
  public static Perturbations defaults() {
    return DEFAULTS;
  }

  /**
   * @throws IllegalArgumentException naming the id got and the known ids
   */
  public Perturbation byId(String id) {
    return registry.get(id);
  }

  public Set<String> ids() {
    return registry.names();
  }
}
