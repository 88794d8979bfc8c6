package dev.infuse.udfs.behavior.tasks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.infuse.udfs.behavior.GoldTarget;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Each perturbation makes exactly the change it records: replaying the recorded edit on the
 * original's lines gives the changed lines, nothing else differs, and the gold names the change.
 */
class PerturbationsTest {
  private static final ClinicalCase OSCE = OsceCase.parse(Fixtures.OSCE);
  private static final ClinicalCase DIALOGUE = DialogueCase.parse(Fixtures.DIALOGUE);

  @ParameterizedTest
  @ValueSource(strings = {"omission", "error_lab_range", "error_drug_swap", "conflict"})
  void makesExactlyTheRecordedChangeOnEveryChoice(String id) {
    Perturbation p = Perturbations.defaults().byId(id);
    for (ClinicalCase original : List.of(OSCE, DIALOGUE)) {
      Set<String> choices = new HashSet<>();
      for (long seed = 0; seed < 40; seed++) {
        Optional<Perturbed> result = p.apply(original, new SplittableRandom(seed));
        assertThat(result).as(id + " applies to the fixture").isPresent();
        Perturbed perturbed = result.get();
        assertThat(perturbed.changed().lines()).isEqualTo(replay(original, perturbed.change()));
        assertGoldNamesChange(original, perturbed);
        choices.add(perturbed.change().toString());
      }
      if (original == OSCE) {
        // the dialogue may offer one spot only (its omission does); the OSCE case offers several
        assertThat(choices).as(id + ": random streams choose differently").hasSizeGreaterThan(1);
      }
    }
  }

  @Test
  void omissionRemovesTheFindingAndNamesIt() {
    Perturbed p = new Omission().apply(OSCE, new SplittableRandom(3)).orElseThrow();
    assertThat(p.gold().kind()).isEqualTo(GoldTarget.OMISSION);
    assertThat(p.changed().findings()).hasSize(OSCE.findings().size() - 1);
    assertThat(p.changed().findings().stream().map(Finding::item)).doesNotContain(p.gold().item());
  }

  @Test
  void labRangeMovesTheValueOutOfItsPlausibleRange() {
    for (long seed = 0; seed < 40; seed++) {
      Perturbed p = new LabRangeError().apply(OSCE, new SplittableRandom(seed)).orElseThrow();
      String to = p.change().get("to");
      double first = NumberText.parts(to).get(0);
      PlausibleRanges.Range range =
          PlausibleRanges.of(
                  p.change().get("item"), NumberText.parts(p.change().get("from")).get(0))
              .orElseThrow();
      assertThat(first).as(p.change().toString()).isGreaterThan(range.high());
    }
  }

  @Test
  void conflictStatesTheSameItemTwiceWithDifferentValues() {
    Perturbed p = new Conflict().apply(OSCE, new SplittableRandom(5)).orElseThrow();
    GoldTarget gold = p.gold();
    assertThat(gold.first()).isNotEqualTo(gold.second());
    assertThat(p.changed().findings().stream().filter(f -> f.item().equals(gold.item())))
        .hasSize(2);
  }

  @Test
  void drugSwapReplacesADrugOrTenfoldsADose() {
    Set<String> seen = new HashSet<>();
    for (long seed = 0; seed < 40; seed++) {
      Map<String, String> change =
          new DrugSwapError().apply(DIALOGUE, new SplittableRandom(seed)).orElseThrow().change();
      seen.add(change.get("from") + "->" + change.get("to"));
    }
    assertThat(seen).contains("lisinopril->lithium", "20->200");
  }

  @Test
  void doesNotApplyWhenTheCaseHasNothingToChange() {
    ClinicalCase plain = DialogueCase.parse("[doctor] how are you ?\n[patient] fine .");
    for (String id : Perturbations.defaults().ids()) {
      assertThat(Perturbations.defaults().byId(id).apply(plain, new SplittableRandom(1))).isEmpty();
    }
  }

  @Test
  void unknownIdListsTheKnownOnes() {
    assertThatThrownBy(() -> Perturbations.defaults().byId("omision"))
        .hasMessageContaining("'omision'")
        .hasMessageContaining("did you mean 'omission'")
        .hasMessageContaining("omission, error_lab_range, error_drug_swap, conflict");
  }

  @Test
  void registeringAnIdTwiceFails() {
    assertThatThrownBy(() -> Perturbations.of(new Omission(), new Omission()))
        .hasMessageContaining("'omission' is registered twice");
  }

  /** The original's lines with the recorded edit applied, computed without ClinicalCase's edits. */
  static List<CaseLine> replay(ClinicalCase original, Map<String, String> change) {
    List<CaseLine> lines = new ArrayList<>(original.lines());
    int line = Integer.parseInt(change.get("line"));
    switch (change.get("op")) {
      case Perturbed.REPLACE -> {
        String text = lines.get(line).text();
        int start = Integer.parseInt(change.get("start"));
        int end = Integer.parseInt(change.get("end"));
        assertThat(text.substring(start, end)).isEqualTo(change.get("from"));
        lines.set(
            line,
            lines
                .get(line)
                .withText(text.substring(0, start) + change.get("to") + text.substring(end)));
      }
      case Perturbed.REMOVE_LINE -> {
        assertThat(lines.get(line).text()).isEqualTo(change.get("text"));
        lines.remove(line);
      }
      case Perturbed.INSERT_LINE -> {
        CaseLine before = lines.get(line - 1);
        lines.add(
            line,
            before.isTurn()
                ? CaseLine.spoken(before.speaker(), change.get("text"))
                : CaseLine.written(before.section(), change.get("text")));
      }
      default -> throw new AssertionError("unknown op " + change.get("op"));
    }
    return lines;
  }

  private static void assertGoldNamesChange(ClinicalCase original, Perturbed p) {
    GoldTarget gold = p.gold();
    Map<String, String> change = p.change();
    assertThat(gold.item()).isEqualTo(change.get("item"));
    int line = Integer.parseInt(change.get("line"));
    switch (gold.kind()) {
      case GoldTarget.ERROR -> {
        assertThat(gold.corrected()).isEqualTo(original.lines().get(line).text());
        assertThat(gold.wrong()).isEqualTo(p.changed().lines().get(line).text());
        assertThat(gold.sentenceId()).isEqualTo(-1);
        assertThat(p.changed().findings()).hasSameSizeAs(original.findings());
      }
      case GoldTarget.OMISSION -> {
        assertThat(change.get("text")).contains(gold.value().split(" ")[0]);
        assertThat(gold.value()).isEqualTo(change.get("value"));
      }
      case GoldTarget.CONFLICT -> {
        assertThat(gold.first()).isEqualTo(change.get("first"));
        assertThat(gold.second()).isEqualTo(change.get("second"));
        assertThat(change.get("text"))
            .contains(
                p.changed().findings().stream()
                    .filter(f -> f.line() == line)
                    .findFirst()
                    .orElseThrow()
                    .value());
        assertThat(p.changed().findings()).hasSize(original.findings().size() + 1);
      }
      default -> throw new AssertionError("unexpected gold " + gold.kind());
    }
  }
}
