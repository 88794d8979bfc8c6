package dev.infuse.udfs.behavior.tasks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.infuse.udfs.behavior.BehaviorType;
import java.util.List;
import org.junit.jupiter.api.Test;

class TaxonomyTest {
  private static final String ONE =
      "id: t\nversion: 2\ncategories:\n"
          + "  - name: vitals_only\n    type: proactive\n    sources: [agentclinic]\n"
          + "    perturbations: [error_lab_range]\n    query: Next step?\n";

  @Test
  void shippedTaxonomyHasTheSevenDefaultCategories() {
    Taxonomy taxonomy = DefaultTaxonomy.load();
    assertThat(taxonomy.id()).isEqualTo("infuse-behavior");
    assertThat(taxonomy.version()).isEqualTo(1);
    assertThat(taxonomy.categories().stream().map(Category::name))
        .containsExactly(
            "question_answering",
            "differential_diagnosis",
            "temporal_ordering",
            "error_correction",
            "omission_detection",
            "consistency_check",
            "restraint");
    assertThat(taxonomy.category("restraint").orElseThrow().type())
        .isEqualTo(BehaviorType.RESTRAINT);
    assertThat(taxonomy.category("restraint").orElseThrow().perturbations()).isEmpty();
    assertThat(taxonomy.category("error_correction").orElseThrow().perturbations())
        .containsExactly("error_lab_range", "error_drug_swap");
    assertThat(taxonomy.category("image_reasoning")).isEmpty();
  }

  @Test
  void aCategoryIsAddedByCombiningSourcesAndPerturbations() {
    Category c = Taxonomy.parse(ONE, "test.yaml").category("vitals_only").orElseThrow();
    assertThat(c)
        .isEqualTo(
            new Category(
                "vitals_only",
                BehaviorType.PROACTIVE,
                "",
                List.of("agentclinic"),
                List.of("error_lab_range"),
                "Next step?"));
  }

  @Test
  void unknownPerturbationNamesCategoryKeyValueAndExpected() {
    assertThatThrownBy(
            () -> Taxonomy.parse(ONE.replace("[error_lab_range]", "[lab_range]"), "t.yaml"))
        .hasMessageContaining("t.yaml: category vitals_only: perturbations: got 'lab_range'")
        .hasMessageContaining(
            "expected one of [omission, error_lab_range, error_drug_swap, conflict]");
  }

  @Test
  void unknownSourceNamesCategoryKeyValueAndExpected() {
    assertThatThrownBy(() -> Taxonomy.parse(ONE.replace("[agentclinic]", "[mimic]"), "t.yaml"))
        .hasMessageContaining("category vitals_only: sources: got 'mimic'")
        .hasMessageContaining("expected one of [medec, agentclinic, aci-bench, medqa]");
  }

  @Test
  void unknownTypeNamesCategoryKeyValueAndExpected() {
    assertThatThrownBy(() -> Taxonomy.parse(ONE.replace("proactive", "pro-active"), "t.yaml"))
        .hasMessageContaining("category vitals_only: type: got 'pro-active'")
        .hasMessageContaining("expected one of [reactive, proactive, restraint]");
  }

  @Test
  void unknownKeyIsRejected() {
    assertThatThrownBy(() -> Taxonomy.parse(ONE + "    weight: 2\n", "t.yaml"))
        .hasMessageContaining("category vitals_only: unknown key 'weight'");
    assertThatThrownBy(() -> Taxonomy.parse("owner: me\n" + ONE, "t.yaml"))
        .hasMessageContaining("t.yaml: unknown key 'owner'");
  }

  @Test
  void perturbationsOnlyForProactiveCategories() {
    assertThatThrownBy(() -> Taxonomy.parse(ONE.replace("proactive", "restraint"), "t.yaml"))
        .hasMessageContaining("category vitals_only: perturbations: got [error_lab_range]")
        .hasMessageContaining("expected none for type restraint");
  }

  @Test
  void duplicateNamesMissingSourcesAndBadVersionAreRejected() {
    String twice = ONE + ONE.substring(ONE.indexOf("  - name"));
    assertThatThrownBy(() -> Taxonomy.parse(twice, "t.yaml"))
        .hasMessageContaining("category vitals_only: name is defined twice");
    assertThatThrownBy(
            () -> Taxonomy.parse(ONE.replace("    sources: [agentclinic]\n", ""), "t.yaml"))
        .hasMessageContaining("category vitals_only: sources: got nothing");
    assertThatThrownBy(() -> Taxonomy.parse(ONE.replace("version: 2", "version: two"), "t.yaml"))
        .hasMessageContaining("version: got \"two\", expected a positive integer");
  }
}
