package dev.infuse.udfs.behavior;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class GoldTargetTest {
  @Test
  void everyKindReadsBackAsWritten() {
    List<GoldTarget> targets =
        List.of(
            GoldTarget.error(
                5, "Culture shows N. gonorrhoeae.", "Culture shows T. vaginalis.", null),
            GoldTarget.omission("potassium", "5.9 mEq/L"),
            GoldTarget.conflict("heart rate", "88/min", "132/min"),
            GoldTarget.order(List.of("b", "a", "c"), List.of(1, 0, 2)),
            GoldTarget.answer("C", "Trimethoprim-sulfamethoxazole"),
            GoldTarget.none());
    for (GoldTarget target : targets) {
      assertThat(GoldTarget.fromJson(target.toJson())).isEqualTo(target);
    }
  }

  @Test
  void storesOnlyTheFieldsItsKindSets() {
    assertThat(GoldTarget.omission("potassium", "5.9 mEq/L").toJson())
        .isEqualTo("{\"kind\":\"omission\",\"item\":\"potassium\",\"value\":\"5.9 mEq/L\"}");
    assertThat(GoldTarget.none().toJson()).isEqualTo("{\"kind\":\"none\"}");
  }

  @Test
  void onlyErrorsOmissionsAndConflictsAreFlags() {
    assertThat(GoldTarget.error(-1, "a", "b", null).isFlag()).isTrue();
    assertThat(GoldTarget.omission("a", "b").isFlag()).isTrue();
    assertThat(GoldTarget.conflict("a", "b", "c").isFlag()).isTrue();
    assertThat(GoldTarget.answer("A", "x").isFlag()).isFalse();
    assertThat(GoldTarget.order(List.of("a"), List.of(0)).isFlag()).isFalse();
    assertThat(GoldTarget.none().isFlag()).isFalse();
  }

  @Test
  void rejectsAnUnknownKindNamingTheValidOnes() {
    assertThatThrownBy(() -> GoldTarget.fromJson("{\"kind\":\"typo\"}"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("gold_target: got {\"kind\":\"typo\"}")
        .hasMessageContaining("expected error, omission, conflict, order, answer or none");
  }
}
