package dev.infuse.udfs.embed;

/**
 * One text as a sentence encoder sees it: token ids with the special tokens, after truncation, and
 * their segment (token type) ids. Unpadded; {@link TokenBatch#pad} pads a batch to its longest row.
 */
public record TokenIds(long[] ids, long[] typeIds) {
  public int length() {
    return ids.length;
  }
}
