package dev.infuse.udfs.behavior.tasks;

import java.util.Optional;
import java.util.SplittableRandom;

/**
 * A registered, versioned change to a clinical case that makes a proactive task. Its version is
 * bumped whenever the change it makes for a given case and random stream changes.
 */
public interface Perturbation {
  /** The registry id named in the taxonomy. */
  String id();

  int version();

  /**
   * The case with exactly one recorded change, and the gold target naming it; empty when the case
   * has nothing this perturbation can change. All choices come from {@code random}.
   */
  Optional<Perturbed> apply(ClinicalCase c, SplittableRandom random);
}
