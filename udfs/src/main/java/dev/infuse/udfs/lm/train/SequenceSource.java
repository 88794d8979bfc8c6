package dev.infuse.udfs.lm.train;

import java.util.List;

/**
 * The rows a training reads, by index: {@link DataOrder} draws each epoch's permutation of {@code
 * 0..size()-1} and the trainer fetches only the rows of the current step. An implementation may
 * keep its rows in memory ({@link #of}) or on disk ({@link MappedSequences}), so the training data
 * need not fit on the heap; the same rows in the same order train the same model either way.
 */
public interface SequenceSource {
  /** How many rows there are. */
  int size();

  /** Row {@code index}, 0 &le; index &lt; {@link #size()}; the same row every time. */
  PackedSequence get(int index);

  default boolean isEmpty() {
    return size() == 0;
  }

  /** Rows already in memory, for small data (the tables path of train, tests). */
  static SequenceSource of(List<PackedSequence> rows) {
    return new InMemorySequences(rows);
  }
}
