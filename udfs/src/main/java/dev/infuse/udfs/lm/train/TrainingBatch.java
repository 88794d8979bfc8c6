package dev.infuse.udfs.lm.train;

import java.util.Arrays;
import java.util.List;

/**
 * One step's sequences as flat arrays, right-padded to the longest row: what the model sees and
 * what it is scored on. Target t of a row is token t + 1, weighted 0 where it is padding, outside
 * the loss mask, or (with document masking) the first token of the next document.
 */
final class TrainingBatch {
  final int rows;
  final int length;
  final long[] tokens;
  final long[] positions;

  /** [row][query][key], true where the query may attend to the key. */
  final boolean[] attention;

  final long[] targets;
  final float[] targetWeights;
  final long realTokens;

  TrainingBatch(List<PackedSequence> sequences, int padTokenId, boolean maskDocumentBoundaries) {
    rows = sequences.size();
    length = sequences.stream().mapToInt(sequence -> sequence.inputIds().length).max().orElse(0);
    tokens = new long[rows * length];
    positions = new long[rows * length];
    attention = new boolean[rows * length * length];
    targets = new long[rows * length];
    targetWeights = new float[rows * length];
    Arrays.fill(tokens, padTokenId);
    long real = 0;
    for (int row = 0; row < rows; row++) {
      fillRow(row, sequences.get(row), maskDocumentBoundaries);
      real += sequences.get(row).inputIds().length;
    }
    realTokens = real;
  }

  private void fillRow(int row, PackedSequence sequence, boolean maskDocumentBoundaries) {
    int[] ids = sequence.inputIds();
    int[] documentStart = documentStarts(sequence);
    int base = row * length;
    for (int t = 0; t < ids.length; t++) {
      tokens[base + t] = ids[t];
      positions[base + t] = maskDocumentBoundaries ? t - documentStart[t] : t;
      int firstKey = maskDocumentBoundaries ? documentStart[t] : 0;
      Arrays.fill(attention, (base + t) * length + firstKey, (base + t) * length + t + 1, true);
      boolean hasNext = t + 1 < ids.length;
      boolean crossesDocument =
          hasNext && maskDocumentBoundaries && documentStart[t + 1] != documentStart[t];
      if (hasNext && !crossesDocument && sequence.isTarget(t + 1)) {
        targets[base + t] = ids[t + 1];
        targetWeights[base + t] = 1f;
      }
    }
  }

  /** For each token, the index of the first token of its document. */
  private static int[] documentStarts(PackedSequence sequence) {
    int[] starts = new int[sequence.inputIds().length];
    int t = 0;
    for (int documentLength : sequence.documentLengths()) {
      Arrays.fill(starts, t, t + documentLength, t);
      t += documentLength;
    }
    return starts;
  }
}
