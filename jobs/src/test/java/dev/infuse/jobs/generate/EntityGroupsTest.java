package dev.infuse.jobs.generate;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** The entigraph recipe's plan: every entity, exactly every pair, and triples chosen by seed. */
class EntityGroupsTest {
  private static final List<String> SEVEN = List.of("A", "B", "C", "D", "E", "F", "G");

  private static List<List<String>> ofSize(List<List<String>> groups, int size) {
    return groups.stream().filter(g -> g.size() == size).toList();
  }

  @Test
  void entigraphPlansEveryEntityAndExactlyEveryPairThenSeededTriples() {
    List<List<String>> plan = EntityGroups.entigraph(SEVEN, 5, 42L);
    assertThat(ofSize(plan, 1)).containsExactly(SEVEN.stream().map(List::of).toArray(List[]::new));
    List<List<String>> pairs = ofSize(plan, 2);
    Set<Set<String>> expected = new HashSet<>();
    for (int i = 0; i < SEVEN.size(); i++) {
      for (int j = i + 1; j < SEVEN.size(); j++) {
        expected.add(Set.of(SEVEN.get(i), SEVEN.get(j)));
      }
    }
    assertThat(pairs).hasSize(21); // 7 choose 2
    assertThat(pairs.stream().map(Set::copyOf).toList())
        .doesNotHaveDuplicates()
        .containsExactlyInAnyOrderElementsOf(expected);
    List<List<String>> triples = ofSize(plan, 3);
    assertThat(triples).hasSize(5);
    assertThat(triples.stream().map(Set::copyOf).toList()).doesNotHaveDuplicates();
    // Singles, then pairs, then triples: a run stopped by a target has the narrow ones first.
    assertThat(plan.stream().map(List::size).toList())
        .isSortedAccordingTo(Integer::compare)
        .hasSize(7 + 21 + 5);
  }

  @Test
  void triplesDependOnTheSeedAlone() {
    List<List<String>> first = ofSize(EntityGroups.entigraph(SEVEN, 5, 42L), 3);
    assertThat(ofSize(EntityGroups.entigraph(SEVEN, 5, 42L), 3)).isEqualTo(first);
    assertThat(EntityGroups.entigraph(SEVEN, 5, 42L))
        .isEqualTo(EntityGroups.entigraph(SEVEN, 5, 42L));
    List<Set<List<String>>> others = new ArrayList<>();
    for (long seed = 43; seed < 48; seed++) {
      others.add(new HashSet<>(ofSize(EntityGroups.entigraph(SEVEN, 5, seed), 3)));
    }
    // Five of 35 triples: other seeds pick other sets (all five coinciding is a 1 in 324,632
    // event).
    assertThat(others).allSatisfy(set -> assertThat(set).isNotEqualTo(new HashSet<>(first)));
  }

  @Test
  void asManyTriplesAsExistAtMostAndNoneBelowThreeEntities() {
    assertThat(ofSize(EntityGroups.entigraph(SEVEN, 1000, 1L), 3)).hasSize(35);
    assertThat(EntityGroups.entigraph(List.of("A", "B"), 10, 1L))
        .containsExactly(List.of("A"), List.of("B"), List.of("A", "B"));
    assertThat(EntityGroups.entigraph(List.of(), 10, 1L)).isEmpty();
    assertThat(ofSize(EntityGroups.entigraph(SEVEN, 0, 1L), 3)).isEmpty();
  }

  @Test
  void manyEntitiesDrawDistinctTriplesWithoutListingThemAll() {
    // 120 entities have 280,840 triples, more than the plan lists before shuffling.
    List<String> many = IntStream.range(0, 120).mapToObj(i -> "E" + i).toList();
    List<List<String>> plan = EntityGroups.entigraph(many, 50, 7L);
    assertThat(ofSize(plan, 2)).hasSize(120 * 119 / 2);
    List<List<String>> triples = ofSize(plan, 3);
    assertThat(triples).hasSize(50);
    assertThat(triples.stream().map(Set::copyOf).toList())
        .doesNotHaveDuplicates()
        .allSatisfy(t -> assertThat(t).hasSize(3));
    assertThat(ofSize(EntityGroups.entigraph(many, 50, 7L), 3)).isEqualTo(triples);
    assertThat(ofSize(EntityGroups.entigraph(many, 50, 8L), 3)).isNotEqualTo(triples);
  }
}
