package dev.infuse.udfs.text;

import java.util.Arrays;

/**
 * Where each token of a text sits, as [start, end) UTF-16 offsets; token i covers {@code
 * text.substring(start(i), end(i))}. Two int arrays rather than a list of objects, because a long
 * document has hundreds of thousands of tokens.
 */
public final class TokenSpans {
  private final int[] starts;
  private final int[] ends;

  /** Copies both arrays, which must have the same length. */
  public TokenSpans(int[] starts, int[] ends) {
    if (starts.length != ends.length) {
      throw new IllegalArgumentException(
          "token spans: " + starts.length + " starts but " + ends.length + " ends");
    }
    this.starts = starts.clone();
    this.ends = ends.clone();
  }

  public int size() {
    return starts.length;
  }

  /** Offset of the first char of token {@code i}. */
  public int start(int i) {
    return starts[i];
  }

  /** Offset just past the last char of token {@code i}. */
  public int end(int i) {
    return ends[i];
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof TokenSpans that
        && Arrays.equals(starts, that.starts)
        && Arrays.equals(ends, that.ends);
  }

  @Override
  public int hashCode() {
    return 31 * Arrays.hashCode(starts) + Arrays.hashCode(ends);
  }

  @Override
  public String toString() {
    return "TokenSpans[" + size() + " tokens]";
  }
}
