package dev.infuse.jobs.report;

import java.util.List;

/**
 * The evaluation settings in the order a reader compares them: without, then with, retrieval and
 * training.
 */
final class Settings {
  static final List<String> ORDER = List.of("closed_book", "rag", "trained", "trained_rag");

  private Settings() {}

  /**
   * The position of {@code setting} in {@link #ORDER}; unknown settings come after, in name order
   * by the caller.
   */
  static int order(String setting) {
    int i = ORDER.indexOf(setting);
    return i < 0 ? ORDER.size() : i;
  }
}
