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
  /** Up to this many triples are listed and shuffled; beyond, distinct triples are drawn. */
  private static final long ENUMERATE_TRIPLES = 200_000;

  private EntityGroups() {}

  /**
   * EntiGraph's plan for one source ({@code data/entigraph.py}): every entity alone, in list order;
   * then every pair, {@code n(n-1)/2} of them; then the first {@code triples} of a seeded shuffle
   * of all {@code n(n-1)(n-2)/6} triples. Pairs come in a seeded order too, so a run stopped by a
   * token target has covered a uniform sample of pairs rather than the first entity's. The same
   * entities and seed always give the same plan, in the same order.
   */
  static List<List<String>> entigraph(List<String> entities, int triples, long seed) {
    List<List<String>> groups = new ArrayList<>();
    for (String entity : entities) {
      groups.add(List.of(entity));
    }
    int n = entities.size();
    List<List<String>> pairs = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      for (int j = i + 1; j < n; j++) {
        pairs.add(List.of(entities.get(i), entities.get(j)));
      }
    }
    shuffle(pairs, new SplittableRandom(seed));
    groups.addAll(pairs);
    groups.addAll(triples(entities, triples, new SplittableRandom(~seed)));
    return groups;
  }

  /** The first {@code count} triples of a seeded uniform shuffle of all of them. */
  private static List<List<String>> triples(
      List<String> entities, int count, SplittableRandom random) {
    int n = entities.size();
    long all = (long) n * (n - 1) * (n - 2) / 6;
    if (n < 3 || count <= 0) {
      return List.of();
    }
    List<List<Integer>> picked = new ArrayList<>();
    if (all <= ENUMERATE_TRIPLES || count >= all) {
      for (int i = 0; i < n; i++) {
        for (int j = i + 1; j < n; j++) {
          for (int k = j + 1; k < n; k++) {
            picked.add(List.of(i, j, k));
          }
        }
      }
      shuffle(picked, random);
      picked = picked.subList(0, (int) Math.min(count, all));
    } else {
      // Too many to list: draw distinct ones (count < all here, so this ends).
      Set<List<Integer>> chosen = new LinkedHashSet<>();
      while (chosen.size() < count) {
        Set<Integer> pick = new java.util.TreeSet<>();
        while (pick.size() < 3) {
          pick.add(random.nextInt(n));
        }
        chosen.add(List.copyOf(pick));
      }
      picked = new ArrayList<>(chosen);
    }
    List<List<String>> groups = new ArrayList<>();
    for (List<Integer> indexes : picked) {
      groups.add(indexes.stream().map(entities::get).toList());
    }
    return groups;
  }

  private static <T> void shuffle(List<T> list, SplittableRandom random) {
    for (int i = list.size() - 1; i > 0; i--) {
      int j = random.nextInt(i + 1);
      T swap = list.get(i);
      list.set(i, list.get(j));
      list.set(j, swap);
    }
  }

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
