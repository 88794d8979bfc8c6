package dev.infuse.udfs.text;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Cuts a document into chunks of at most {@code maxTokens} tokens that end, where the budget
 * allows, at a paragraph end, else a sentence end, else a line end, else whitespace, else between
 * two tokens. A preferred break is taken only if the chunk keeps at least half of {@code
 * maxTokens}, so chunks do not shrink to a sentence just because a paragraph ended early.
 *
 * <p>The document is tokenized once; each chunk's text is then counted again on its own, because a
 * substring can tokenize differently from the same span of the whole, and a chunk whose own count
 * is over budget is cut shorter. Chunks never start or end with whitespace: without overlap,
 * consecutive chunks are separated by the whitespace between them only, so chunks and gaps rebuild
 * the document. With overlap, a chunk starts about {@code overlapTokens} tokens before the previous
 * one ended, moved forward to a sentence or word start when one is near.
 *
 * <p>Thread-safe if the tokenizer is; deterministic.
 */
public final class Chunker implements TextChunker {
  private final TextTokenizer tokenizer;
  private final ChunkSpec spec;

  public Chunker(TextTokenizer tokenizer, ChunkSpec spec) {
    this.tokenizer = Objects.requireNonNull(tokenizer, "tokenizer");
    this.spec = Objects.requireNonNull(spec, "spec");
  }

  @Override
  public List<TextChunk> chunk(String document) {
    int contentEnd = BoundaryKind.trimEnd(document, 0, document.length());
    int start = BoundaryKind.skipWhitespace(document, 0, contentEnd);
    if (start >= contentEnd) {
      return List.of();
    }
    TokenSpans spans = tokenizer.spans(document);
    List<TextChunk> chunks = new ArrayList<>();
    int firstToken = 0;
    while (true) {
      firstToken = firstTokenEndingAfter(spans, start, firstToken);
      FittedChunk fitted = fit(document, spans, start, firstToken, contentEnd);
      Cut cut = fitted.cut();
      chunks.add(new TextChunk(chunks.size(), start, cut.end(), fitted.nTokens(), fitted.text()));
      if (cut.end() >= contentEnd) {
        return chunks;
      }
      start = nextStart(document, spans, start, firstToken, cut, contentEnd);
    }
  }

  /**
   * Where the chunk after {@code cut} starts: inside it when overlapping, else past the whitespace
   * that follows it. Always after {@code start}, so chunking ends.
   */
  private int nextStart(
      String document, TokenSpans spans, int start, int firstToken, Cut cut, int contentEnd) {
    int overlapToken = overlapStartToken(document, spans, firstToken, cut.lastToken());
    if (overlapToken <= cut.lastToken()) {
      int overlapStart =
          BoundaryKind.skipWhitespace(document, spans.start(overlapToken), contentEnd);
      if (overlapStart > start && overlapStart < cut.end()) {
        return overlapStart;
      }
    }
    return BoundaryKind.skipWhitespace(document, cut.end(), contentEnd);
  }

  /** The chunk starting at {@code start}, shrunk until its own token count is within budget. */
  private FittedChunk fit(
      String document, TokenSpans spans, int start, int firstToken, int contentEnd) {
    int budget = spec.maxTokens();
    while (true) {
      Cut cut = plan(document, spans, start, firstToken, budget, contentEnd);
      String text = document.substring(start, cut.end());
      int nTokens = tokenizer.count(text);
      int plannedTokens = cut.lastToken() - firstToken + 1;
      // A single token is as small as a chunk gets at token boundaries, so it is kept even if over.
      if (nTokens <= spec.maxTokens() || plannedTokens <= 1) {
        return new FittedChunk(cut, nTokens, text);
      }
      budget = plannedTokens - Math.max(1, nTokens - spec.maxTokens());
    }
  }

  /**
   * Where a chunk starting at {@code start} (whose first token is {@code firstToken}) should end if
   * it may hold {@code budget} tokens of the whole document's tokenization.
   */
  private Cut plan(
      String document, TokenSpans spans, int start, int firstToken, int budget, int contentEnd) {
    int tokens = spans.size();
    if (tokens - firstToken <= budget) {
      return new Cut(contentEnd, tokens - 1);
    }
    int lastAllowed = firstToken + budget - 1;
    int lastRequired = firstToken + spec.maxTokens() / 2 - 1;
    BoundaryKind[] kinds = BoundaryKind.values();
    int[] bestEnd = new int[kinds.length];
    int[] bestToken = new int[kinds.length];
    for (int j = lastAllowed; j >= lastRequired; j--) {
      int end = endAfterToken(document, spans, start, j);
      if (end < 0) {
        continue;
      }
      BoundaryKind kind = BoundaryKind.at(document, start, end);
      if (kind == BoundaryKind.PARAGRAPH) {
        return new Cut(end, j);
      }
      // Scanning backwards, the first position of each kind is the longest chunk of that kind.
      if (kind != BoundaryKind.NONE && bestEnd[kind.ordinal()] == 0) {
        bestEnd[kind.ordinal()] = end;
        bestToken[kind.ordinal()] = j;
      }
    }
    for (BoundaryKind kind : kinds) {
      if (bestEnd[kind.ordinal()] > 0) {
        return new Cut(bestEnd[kind.ordinal()], bestToken[kind.ordinal()]);
      }
    }
    for (int j = lastAllowed; j >= firstToken; j--) {
      int end = endAfterToken(document, spans, start, j);
      if (end >= 0) {
        return new Cut(end, j);
      }
    }
    // No clean cut between tokens (they all share chars): cut inside the shared span.
    return new Cut(Math.max(start + 1, spans.end(lastAllowed)), lastAllowed);
  }

  /**
   * The chunk end if the chunk's last token is {@code j}, trimmed of trailing whitespace; -1 if
   * token {@code j + 1} shares chars with token {@code j} (as byte-level tokens of one character
   * do) or the chunk would be empty.
   */
  private static int endAfterToken(String document, TokenSpans spans, int start, int j) {
    if (j + 1 < spans.size() && spans.end(j) > spans.start(j + 1)) {
      return -1;
    }
    int end = BoundaryKind.trimEnd(document, start, spans.end(j));
    return end > start ? end : -1;
  }

  /**
   * The token the next chunk starts at, given the current chunk's first and last tokens: about
   * {@code overlapTokens} back from the end, moved forward to a sentence start in the first half of
   * the overlap or else to a word start; past {@code lastToken} when there is no overlap.
   */
  private int overlapStartToken(String document, TokenSpans spans, int firstToken, int lastToken) {
    int overlap = spec.overlapTokens();
    int target = Math.max(firstToken + 1, lastToken + 1 - overlap);
    if (overlap == 0 || target > lastToken) {
      return lastToken + 1;
    }
    int sentenceLimit = Math.min(lastToken, target + overlap / 2);
    for (int i = target; i <= sentenceLimit; i++) {
      if (startsSentence(document, spans.start(i))) {
        return i;
      }
    }
    for (int i = target; i <= lastToken; i++) {
      if (startsWord(document, spans.start(i))) {
        return i;
      }
    }
    return target;
  }

  private static boolean startsWord(String document, int offset) {
    return offset == 0
        || BoundaryKind.isWhitespace(document.charAt(offset - 1))
        || BoundaryKind.isWhitespace(document.charAt(offset));
  }

  private static boolean startsSentence(String document, int offset) {
    if (!startsWord(document, offset)) {
      return false;
    }
    int previousEnd = BoundaryKind.trimEnd(document, 0, offset);
    if (previousEnd == 0) {
      return true;
    }
    BoundaryKind kind = BoundaryKind.at(document, 0, previousEnd);
    return kind == BoundaryKind.PARAGRAPH || kind == BoundaryKind.SENTENCE;
  }

  /** The first token at or after {@code from} that ends after {@code offset}; size() if none. */
  private static int firstTokenEndingAfter(TokenSpans spans, int offset, int from) {
    int i = from;
    while (i < spans.size() && spans.end(i) <= offset) {
      i++;
    }
    return i;
  }

  /** Where a chunk ends: the offset, and its last token among the whole document's tokens. */
  private record Cut(int end, int lastToken) {}

  /** A cut whose text has been counted on its own and is within budget. */
  private record FittedChunk(Cut cut, int nTokens, String text) {}
}
