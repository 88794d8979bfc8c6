package dev.infuse.udfs.behavior.tasks;

import dev.infuse.udfs.behavior.GoldTarget;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;

/**
 * {@code conflict} v1: states one numeric finding a second time, right after the first, with a
 * value 40–60% higher or lower, so the record contradicts itself. A written case gets a second
 * {@code Item: value} line in the same section; a dialogue gets a turn by the same speaker.
 */
final class Conflict implements Perturbation {
  static final String ID = "conflict";
  private static final double[] FACTORS = {0.4, 0.5, 0.6, 1.4, 1.5, 1.6};

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
    List<Finding> candidates =
        c.findings().stream()
            .filter(f -> NumberText.isValue(f.value()) && NumberText.parts(f.value()).get(0) > 0)
            .toList();
    if (candidates.isEmpty()) {
      return Optional.empty();
    }
    Finding f = candidates.get(random.nextInt(candidates.size()));
    String second = NumberText.scaled(f.value(), FACTORS[random.nextInt(FACTORS.length)]);
    if (second.equals(f.value())) {
      second = NumberText.scaled(f.value(), 3);
    }
    CaseLine at = c.lines().get(f.line());
    String unit = f.unit() == null ? "" : " " + f.unit();
    String prefix = at.isTurn() ? "and the " + f.item() + " is " : f.item() + ": ";
    String text = prefix + second + unit + (at.isTurn() ? " ." : "");
    CaseLine added =
        at.isTurn() ? CaseLine.spoken(at.speaker(), text) : CaseLine.written(at.section(), text);
    Finding stated =
        new Finding(f.line() + 1, f.section(), f.item(), second, f.unit(), prefix.length());
    Map<String, String> change = Edits.insertLine(f.line() + 1, text);
    change.put("item", f.item());
    change.put("first", f.valueWithUnit());
    change.put("second", stated.valueWithUnit());
    return Optional.of(
        new Perturbed(
            c.insertLine(f.line() + 1, added, stated),
            GoldTarget.conflict(f.item(), f.valueWithUnit(), stated.valueWithUnit()),
            change));
  }
}
