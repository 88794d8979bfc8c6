package dev.infuse.udfs.decontam;

import java.io.Serializable;

/** A half-open range {@code [start, end)} of UTF-16 indices into a text. */
public record CharSpan(int start, int end) implements Serializable {
  public CharSpan {
    if (start < 0 || end < start) {
      throw new IllegalArgumentException(
          "char span: got [" + start + ", " + end + "), expected 0 <= start <= end");
    }
  }

  public int length() {
    return end - start;
  }
}
