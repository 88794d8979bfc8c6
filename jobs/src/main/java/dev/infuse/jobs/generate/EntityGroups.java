package dev.infuse.jobs.generate;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * Which entity groups an entity-document run writes about, per source: the first {@code singles}
 * entities (they come ranked), then up to {@code pairs} pairs and {@code triples} triples drawn
 * with a seeded sampler among all combinations, so the same seed always picks the same groups
 * (EntiGraph samples pairs and triples the same way to stay within a budget).
 */
final class EntityGroups {
  private EntityGroups() {}

  static List<List<String>> choose(
      List<String> entities, int singles, int pairs, int triples, long seed) {
    List<List<String>> groups = new ArrayList<>();
    for (int i = 0; i < Math.min(singles, entities.size()); i++) {
      groups.add(List.of(entities.get(i)));
    }
    SplittableRandom random = new SplittableRandom(seed);
    groups.addAll(sample(entities, 2, pairs, random));
    groups.addAll(sample(entities, 3, triples, random));
    return groups;
  }

  /**
   * Up to {@code count} distinct k-subsets, drawn uniformly; all of them when there are no more
   * than that.
   */
  private static List<List<String>> sample(
      List<String> entities, int k, int count, SplittableRandom random) {
    int n = entities.size();
    if (n < k || count <= 0) {
      return List.of();
    }
    long combinations = k == 2 ? (long) n * (n - 1) / 2 : (long) n * (n - 1) * (n - 2) / 6;
    Set<List<Integer>> chosen = new LinkedHashSet<>();
    int tries = 0;
    while (chosen.size() < Math.min(count, combinations) && tries++ < count * 50) {
      Set<Integer> pick = new java.util.TreeSet<>();
      while (pick.size() < k) {
        pick.add(random.nextInt(n));
      }
      chosen.add(List.copyOf(pick));
    }
    List<List<String>> groups = new ArrayList<>();
    for (List<Integer> indexes : chosen) {
      groups.add(indexes.stream().map(entities::get).toList());
    }
    return groups;
  }
}
