package dev.infuse.udfs.behavior.tasks;

import dev.infuse.udfs.behavior.GoldTarget;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;

/**
 * {@code omission} v1: removes the line stating one decisive finding, a test result or a vital sign
 * with a known plausible range, so the case lacks what a decision needs.
 */
final class Omission implements Perturbation {
  static final String ID = "omission";

  @Override
  public String id() {
    return ID;
  }

  @Override
  public int version() {
    return 1;
  }

  @Override
  public Optional<Perturbed> apply(ClinicalCase c, SplittableRandom random) {
    // a line stating two findings would lose both; only single-finding lines are removed
    List<Finding> candidates =
        c.findings().stream()
            .filter(f -> isDecisive(f) && c.findingsOn(f.line()).size() == 1)
            .toList();
    if (candidates.isEmpty()) {
      return Optional.empty();
    }
    Finding removed = candidates.get(random.nextInt(candidates.size()));
    Map<String, String> change =
        Edits.removeLine(removed.line(), c.lines().get(removed.line()).text());
    change.put("item", removed.item());
    change.put("value", removed.valueWithUnit());
    return Optional.of(
        new Perturbed(
            c.removeLine(removed.line()),
            GoldTarget.omission(removed.item(), removed.valueWithUnit()),
            change));
  }

  private static boolean isDecisive(Finding f) {
    if (f.section().startsWith(OsceCase.TEST_RESULTS)) {
      return true;
    }
    return NumberText.isValue(f.value())
        && PlausibleRanges.of(f.item(), NumberText.parts(f.value()).get(0)).isPresent();
  }
}
