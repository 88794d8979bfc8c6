package dev.infuse.udfs.behavior.tasks;

import dev.infuse.udfs.behavior.GoldTarget;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;

/**
 * {@code error_lab_range} v1: moves one vital or lab value from inside its plausible range to 1.5–
 * 2.5 times the range's top, an impossible value a careful reader must flag. Pairs (blood pressure)
 * scale both parts.
 */
final class LabRangeError implements Perturbation {
  static final String ID = "error_lab_range";

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
    List<Finding> candidates = new ArrayList<>();
    for (Finding f : c.findings()) {
      if (NumberText.isValue(f.value())) {
        double first = NumberText.parts(f.value()).get(0);
        PlausibleRanges.of(f.item(), first)
            .filter(r -> first > 0 && first >= r.low() && first <= r.high())
            .ifPresent(r -> candidates.add(f));
      }
    }
    if (candidates.isEmpty()) {
      return Optional.empty();
    }
    Finding f = candidates.get(random.nextInt(candidates.size()));
    double first = NumberText.parts(f.value()).get(0);
    PlausibleRanges.Range range = PlausibleRanges.of(f.item(), first).orElseThrow();
    double factor = range.high() / first * (1.5 + random.nextDouble());
    String wrong = NumberText.scaled(f.value(), factor);
    ClinicalCase changed = c.replace(f.line(), f.start(), f.end(), wrong);
    Map<String, String> change = Edits.replace(f.line(), f.start(), f.end(), f.value(), wrong);
    change.put("item", f.item());
    change.put("plausible_range", range.text());
    GoldTarget gold =
        GoldTarget.error(
            -1, changed.lines().get(f.line()).text(), c.lines().get(f.line()).text(), f.item());
    return Optional.of(new Perturbed(changed, gold, change));
  }
}
