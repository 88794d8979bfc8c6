package dev.infuse.udfs.pack;

import dev.infuse.udfs.lm.train.PackedSequence;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Packs texts end to end into fixed-length sequences, each text followed by an end-of-text token,
 * and records where every document segment starts so a trainer can keep attention inside documents.
 *
 * <p>A text longer than the room left in a sequence continues in the next one as a new segment. The
 * last sequence is filled with padding that is never a target, so no token is dropped: the packed
 * target tokens are exactly the texts' tokens plus one separator each.
 *
 * <p>{@link #stream} packs texts as they arrive, holding one sequence in memory, so a shard writer
 * can pack any number of texts; {@link #pack} is the same over a list.
 */
public final class TokenPacker {
  private final int sequenceLength;
  private final int eosId;
  private final int padId;

  public TokenPacker(int sequenceLength, int eosId, int padId) {
    if (sequenceLength < 2) {
      throw new IllegalArgumentException(
          "sequence length: got " + sequenceLength + ", expected >= 2");
    }
    this.sequenceLength = sequenceLength;
    this.eosId = eosId;
    this.padId = padId;
  }

  /** The packed sequences, in the order of {@code texts}. */
  public List<PackedSequence> pack(List<TokenizedText> texts) {
    List<PackedSequence> sequences = new ArrayList<>();
    try (Stream stream = stream(true, (sequence, padding) -> sequences.add(sequence))) {
      texts.forEach(stream::add);
    }
    return sequences;
  }

  /**
   * No packing: each text (plus its end-of-text token) starts its own sequence, padded to the
   * length with padding that is never a target. A text longer than a sequence continues in the next
   * one, so nothing is cut off; every sequence holds one document segment and its padding.
   */
  public List<PackedSequence> padEach(List<TokenizedText> texts) {
    List<PackedSequence> sequences = new ArrayList<>();
    try (Stream stream = stream(false, (sequence, padding) -> sequences.add(sequence))) {
      texts.forEach(stream::add);
    }
    return sequences;
  }

  /**
   * A packer that hands each finished sequence to {@code sink} as texts are added; {@link
   * Stream#close()} pads and emits the last one.
   *
   * @param packed true packs texts end to end; false starts every text in a fresh sequence ({@link
   *     #padEach})
   */
  public Stream stream(boolean packed, Sink sink) {
    return new Stream(packed, sink);
  }

  /** Receives finished sequences. */
  public interface Sink {
    /**
     * @param padding how many trailing tokens of {@code sequence} are padding (0 but for a flushed
     *     sequence)
     */
    void accept(PackedSequence sequence, int padding);
  }

  /** Packing in progress; not thread-safe. */
  public final class Stream implements AutoCloseable {
    private final boolean packed;
    private final Sink sink;
    private final int[] ids = new int[sequenceLength];
    private final int[] mask = new int[sequenceLength];
    private final List<Integer> segments = new ArrayList<>();
    private int filled;
    private long sequences;
    private long paddingTokens;

    private Stream(boolean packed, Sink sink) {
      this.packed = packed;
      this.sink = sink;
    }

    /** Appends one text and its end-of-text token. */
    public void add(TokenizedText text) {
      if (!packed) {
        flush();
      }
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
          emit(0);
        }
      }
    }

    /** Sequences emitted so far. */
    public long sequences() {
      return sequences;
    }

    /** Padding tokens emitted so far (never targets). */
    public long paddingTokens() {
      return paddingTokens;
    }

    /** Pads and emits the partly filled sequence, if any. */
    @Override
    public void close() {
      flush();
    }

    private void flush() {
      if (filled > 0) {
        Arrays.fill(ids, filled, sequenceLength, padId);
        Arrays.fill(mask, filled, sequenceLength, 0);
        int padding = sequenceLength - filled;
        segments.add(padding);
        paddingTokens += padding;
        emit(padding);
      }
    }

    private void emit(int padding) {
      sink.accept(
          new PackedSequence(
              ids.clone(), segments.stream().mapToInt(Integer::intValue).toArray(), mask.clone()),
          padding);
      sequences++;
      filled = 0;
      segments.clear();
    }
  }
}
