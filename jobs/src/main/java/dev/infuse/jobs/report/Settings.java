package dev.infuse.jobs.report;

import dev.infuse.udfs.answer.Setting;
import dev.infuse.udfs.common.EnumNames;

/**
 * The evaluation settings in the order a reader compares them ({@link Setting}'s: without, then
 * with, retrieval and training), for a report that reads them back as names from the tables.
 */
final class Settings {
  private Settings() {}

  /**
   * The position of {@code setting} (possibly labelled with its RAG recipe, {@code rag
   * [entigraph]}) in {@link Setting}'s order; unknown settings come after, in name order by the
   * caller.
   */
  static int order(String setting) {
    return EnumNames.find(Setting.class, RagRecipes.bare(setting))
        .map(Enum::ordinal)
        .orElse(Setting.values().length);
  }
}
