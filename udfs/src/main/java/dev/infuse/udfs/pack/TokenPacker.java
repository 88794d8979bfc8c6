package dev.infuse.udfs.pack;

import dev.infuse.udfs.lm.train.PackedSequence;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Packs texts end to end into fixed-length sequences, each text followed by an end-of-text token, and
 * records where every document segment starts so a trainer can keep attention inside documents.
 *
 * <p>A text longer than the room left in a sequence continues in the next one as a new segment. The
 * last sequence is filled with padding that is never a target, so no token is dropped: the packed
 * target tokens are exactly the texts' tokens plus one separator each.
 */
public final class TokenPacker {
  private final int sequenceLength;
  private final int eosId;
  private final int padId;

  public TokenPacker(int sequenceLength, int eosId, int padId) {
    if (sequenceLength < 2) {
      throw new IllegalArgumentException("sequence length: got " + sequenceLength + ", expected >= 2");
    }
    this.sequenceLength = sequenceLength;
    this.eosId = eosId;
    this.padId = padId;
  }

  /** The packed sequences, in the order of {@code texts}. */
  public List<PackedSequence> pack(List<TokenizedText> texts) {
    List<PackedSequence> sequences = new ArrayList<>();
    int[] ids = new int[sequenceLength];
    int[] mask = new int[sequenceLength];
    List<Integer> segments = new ArrayList<>();
    int filled = 0;
    for (TokenizedText text : texts) {
      int length = text.ids().length + 1;
      int taken = 0;
      while (taken < length) {
        int room = sequenceLength - filled;
        int n = Math.min(room, length - taken);
        for (int i = 0; i < n; i++) {
          int at = taken + i;
          boolean separator = at == text.ids().length;
          ids[filled + i] = separator ? eosId : text.ids()[at];
          // The separator is always a target: a model must learn where a text ends.
          mask[filled + i] = separator || text.lossMask() == null ? 1 : text.lossMask()[at];
        }
        segments.add(n);
        filled += n;
        taken += n;
        if (filled == sequenceLength) {
          sequences.add(sequence(ids, mask, segments));
          filled = 0;
          segments.clear();
        }
      }
    }
    if (filled > 0) {
      Arrays.fill(ids, filled, sequenceLength, padId);
      Arrays.fill(mask, filled, sequenceLength, 0);
      segments.add(sequenceLength - filled);
      sequences.add(sequence(ids, mask, segments));
    }
    return sequences;
  }

  /**
   * No packing: each text (plus its end-of-text token) starts its own sequence, padded to the length
   * with padding that is never a target. A text longer than a sequence continues in the next one, so
   * nothing is cut off; every sequence holds one document segment and its padding.
   */
  public List<PackedSequence> padEach(List<TokenizedText> texts) {
    List<PackedSequence> sequences = new ArrayList<>();
    for (TokenizedText text : texts) {
      sequences.addAll(pack(List.of(text)));
    }
    return sequences;
  }

  private static PackedSequence sequence(int[] ids, int[] mask, List<Integer> segments) {
    return new PackedSequence(ids.clone(), segments.stream().mapToInt(Integer::intValue).toArray(), mask.clone());
  }
}
