package dev.infuse.udfs.text;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Cuts a document into chunks of at most {@code maxChars} characters the way LangChain's {@code
 * RecursiveCharacterTextSplitter} does, as EntiGraph's RAG baseline uses it ({@code chunk_size}
 * 1024, {@code chunk_overlap} 0, default separators, {@code keep_separator=True}, {@code
 * strip_whitespace=True}), but on offsets, so that each chunk is an exact substring of the
 * document:
 *
 * <ol>
 *   <li>Take the first separator of the list that occurs in the text ({@code char} always does) and
 *       cut the text before each occurrence, so each piece starts with its separator.
 *   <li>Pieces shorter than {@code maxChars} are merged greedily, in order, into spans of at most
 *       {@code maxChars}; a piece of {@code maxChars} or more is split again, recursively, with the
 *       separators after the one used.
 *   <li>Each merged span is trimmed of whitespace at both ends (Python's {@code str.strip}); a span
 *       that is only whitespace is dropped.
 * </ol>
 *
 * <p>With overlap, a new span starts with the previous span's last pieces that total at most {@code
 * overlapChars} (LangChain's {@code _merge_splits}). Lengths count code points, as Python's {@code
 * len} does; offsets are UTF-16 indices, as everywhere in Infuse. {@code n_tokens} is the
 * tokenizer's count of each chunk's text, for reporting only.
 *
 * <p>Thread-safe if the tokenizer is; deterministic.
 */
public final class CharacterChunker implements TextChunker {
  private final TextTokenizer tokenizer;
  private final CharChunkSpec spec;

  public CharacterChunker(TextTokenizer tokenizer, CharChunkSpec spec) {
    this.tokenizer = Objects.requireNonNull(tokenizer, "tokenizer");
    this.spec = Objects.requireNonNull(spec, "spec");
  }

  @Override
  public List<TextChunk> chunk(String document) {
    List<int[]> spans = new ArrayList<>();
    split(document, 0, document.length(), spec.separators(), spans);
    List<TextChunk> chunks = new ArrayList<>(spans.size());
    for (int[] span : spans) {
      String text = document.substring(span[0], span[1]);
      chunks.add(new TextChunk(chunks.size(), span[0], span[1], tokenizer.count(text), text));
    }
    return chunks;
  }

  /** Appends the chunks of {@code document[from, to)} to {@code out}. */
  private void split(
      String document, int from, int to, List<Separator> separators, List<int[]> out) {
    Separator separator = separators.get(separators.size() - 1);
    List<Separator> finer = List.of();
    for (int i = 0; i < separators.size(); i++) {
      Separator candidate = separators.get(i);
      if (candidate == Separator.CHAR) {
        separator = candidate;
        break;
      }
      if (candidate.occursIn(document, from, to)) {
        separator = candidate;
        finer = separators.subList(i + 1, separators.size());
        break;
      }
    }
    List<int[]> fitting = new ArrayList<>();
    for (int[] piece : separator.pieces(document, from, to)) {
      if (length(document, piece[0], piece[1]) < spec.maxChars()) {
        fitting.add(piece);
        continue;
      }
      if (!fitting.isEmpty()) {
        merge(document, fitting, out);
        fitting.clear();
      }
      if (finer.isEmpty()) {
        // Unreachable while the list ends with char (a one-code-point piece always fits), kept
        // as LangChain has it: the piece is a chunk of its own.
        emit(document, piece[0], piece[1], out);
      } else {
        split(document, piece[0], piece[1], finer, out);
      }
    }
    if (!fitting.isEmpty()) {
      merge(document, fitting, out);
    }
  }

  /** Merges consecutive pieces into spans of at most {@code maxChars}, as LangChain does. */
  private void merge(String document, List<int[]> pieces, List<int[]> out) {
    ArrayDeque<int[]> current = new ArrayDeque<>();
    int total = 0;
    for (int[] piece : pieces) {
      int length = length(document, piece[0], piece[1]);
      if (total + length > spec.maxChars() && !current.isEmpty()) {
        emit(document, current.getFirst()[0], current.getLast()[1], out);
        while (total > spec.overlapChars() || (total + length > spec.maxChars() && total > 0)) {
          int[] first = current.removeFirst();
          total -= length(document, first[0], first[1]);
        }
      }
      current.addLast(piece);
      total += length;
    }
    if (!current.isEmpty()) {
      emit(document, current.getFirst()[0], current.getLast()[1], out);
    }
  }

  /** Adds {@code [from, to)} trimmed of whitespace, unless nothing is left. */
  private static void emit(String document, int from, int to, List<int[]> out) {
    int start = from;
    while (start < to && isSpace(document.charAt(start))) {
      start++;
    }
    int end = to;
    while (end > start && isSpace(document.charAt(end - 1))) {
      end--;
    }
    if (end > start) {
      out.add(new int[] {start, end});
    }
  }

  /** Whitespace as Python's {@code str.strip} sees it (U+0085 included, unlike Java's). */
  private static boolean isSpace(char c) {
    return BoundaryKind.isWhitespace(c) || c == '\u0085';
  }

  private static int length(String document, int from, int to) {
    return document.codePointCount(from, to);
  }
}
