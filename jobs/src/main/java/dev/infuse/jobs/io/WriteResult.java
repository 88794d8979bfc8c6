package dev.infuse.jobs.io;

/**
 * What one write did to a table.
 *
 * @param version the Delta version the write committed, or -1 when there was nothing to change and
 *     so no commit (a rerun over the same input)
 */
public record WriteResult(String table, long inserted, long updated, long deleted, long version) {
  public static WriteResult unchanged(String table) {
    return new WriteResult(table, 0, 0, 0, -1);
  }

  public boolean committed() {
    return version >= 0;
  }

  @Override
  public String toString() {
    return committed()
        ? table
            + ": +"
            + inserted
            + " inserted, "
            + updated
            + " updated, "
            + deleted
            + " deleted (version "
            + version
            + ")"
        : table + ": unchanged (no commit)";
  }
}
