package dev.infuse.udfs.text;

/**
 * One chunk of a document. Offsets are UTF-16 indices into the original document string, so the
 * chunk can be traced back to its exact place in the source.
 *
 * @param ordinal position among the document's chunks, from 0
 * @param charStart offset of the chunk's first char
 * @param charEnd offset just past the chunk's last char
 * @param nTokens the tokenizer's count of {@code text} on its own
 * @param text exactly {@code document.substring(charStart, charEnd)}
 */
public record TextChunk(int ordinal, int charStart, int charEnd, int nTokens, String text) {}
