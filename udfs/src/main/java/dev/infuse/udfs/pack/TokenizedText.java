package dev.infuse.udfs.pack;

/**
 * One training text as token ids, before packing.
 *
 * @param source the table it came from: documents, synthetic_docs, synthetic_qa
 * @param rowId its key in that table
 * @param ids its token ids, without special tokens
 * @param lossMask 1 where a token is a prediction target, 0 where it is context only (a question
 *     before its answer); null when every token is a target
 */
public record TokenizedText(String source, String rowId, int[] ids, int[] lossMask) {
  public TokenizedText {
    if (lossMask != null && lossMask.length != ids.length) {
      throw new IllegalArgumentException(
          source
              + " "
              + rowId
              + ": loss mask has "
              + lossMask.length
              + " entries, expected one per token ("
              + ids.length
              + ")");
    }
  }
}
