package dev.infuse.udfs.lm.train;

import java.util.List;

/** A {@link SequenceSource} over a list the caller already holds. */
final class InMemorySequences implements SequenceSource {
  private final List<PackedSequence> rows;

  InMemorySequences(List<PackedSequence> rows) {
    this.rows = List.copyOf(rows);
  }

  @Override
  public int size() {
    return rows.size();
  }

  @Override
  public PackedSequence get(int index) {
    return rows.get(index);
  }
}
