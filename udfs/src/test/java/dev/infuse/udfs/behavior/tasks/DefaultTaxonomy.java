package dev.infuse.udfs.behavior.tasks;

import dev.infuse.udfs.RepoPaths;

/** The shipped {@code conf/behavior/taxonomy.yaml}, for tests. */
final class DefaultTaxonomy {
  private DefaultTaxonomy() {}

  static Taxonomy load() {
    return Taxonomy.load(RepoPaths.repoRoot().resolve("conf/behavior/taxonomy.yaml"));
  }
}
