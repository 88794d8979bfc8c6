package dev.infuse.udfs.maporl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class GroupAdvantagesTest {
  @Test
  void eachGroupIsCentredAndScaledBySampleStd() {
    Map<String, List<Double>> groups = new LinkedHashMap<>();
    groups.put("q1", List.of(1.0, 0.0, 0.0, 1.0));
    groups.put("q2", List.of(5.0));
    groups.put("q3", List.of(2.0, 2.0));
    Map<String, List<Double>> out = GroupAdvantages.normalise(groups);
    // q1: mean 0.5; sample std = sqrt(4 * 0.25 / 3) = 0.577350; 0.5 / 0.577351 = 0.866024
    assertThat(out.get("q1").get(0)).isCloseTo(0.866024, within(1e-5));
    assertThat(out.get("q1").get(1)).isCloseTo(-0.866024, within(1e-5));
    assertThat(out.get("q2")).containsExactly(0.0);
    assertThat(out.get("q3")).containsExactly(0.0, 0.0);
  }
}
