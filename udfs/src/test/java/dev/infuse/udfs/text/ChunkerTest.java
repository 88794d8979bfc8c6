package dev.infuse.udfs.text;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class ChunkerTest {
  private static final Pattern SENTENCE_END = Pattern.compile("[.!?…][\"')\\]}’”»]*$");
  private static final Pattern BLANK_LINE_AHEAD =
      Pattern.compile("^[\\s\\u00a0]*\\n[\\s\\u00a0]*\\n");

  private final TextTokenizer minilm = Tokenizers.defaultTokenizer();

  @Test
  void emptyOrBlankDocumentsHaveNoChunks() {
    Chunker chunker = new Chunker(minilm, ChunkSpec.defaults());
    assertThat(chunker.chunk("")).isEmpty();
    assertThat(chunker.chunk(" \n\t\u00a0 \n")).isEmpty();
  }

  @Test
  void textTheTokenizerIgnoresIsStillKeptAsAChunk() {
    // MiniLM strips accents, so a lone combining accent has no token, yet it is content.
    List<TextChunk> chunks = new Chunker(minilm, ChunkSpec.defaults()).chunk(" \u0301 ");
    assertThat(chunks).containsExactly(new TextChunk(0, 1, 2, 0, "\u0301"));
  }

  @Test
  void aShortDocumentIsOneTrimmedChunk() {
    String document = "  \nHello world.  \n";
    List<TextChunk> chunks = new Chunker(minilm, ChunkSpec.defaults()).chunk(document);
    assertThat(chunks).containsExactly(new TextChunk(0, 3, 15, 3, "Hello world."));
  }

  @Test
  void qualityArticlesChunkWithinBudgetAndCoverTheText() {
    for (int maxTokens : new int[] {64, 256, 1024}) {
      ChunkSpec spec = new ChunkSpec(maxTokens, 0);
      Chunker chunker = new Chunker(minilm, spec);
      for (String article : QualityArticles.load()) {
        List<TextChunk> chunks = chunker.chunk(article);
        assertValidChunks(minilm, article, chunks, spec);
        assertCoversWithWhitespaceGaps(article, chunks);
      }
    }
  }

  @Test
  void mostChunksOfProseEndAtSentencesOrParagraphs() {
    ChunkSpec spec = new ChunkSpec(256, 0);
    Chunker chunker = new Chunker(minilm, spec);
    int ends = 0;
    int cleanEnds = 0;
    for (String article : QualityArticles.load()) {
      List<TextChunk> chunks = chunker.chunk(article);
      for (TextChunk chunk : chunks.subList(0, chunks.size() - 1)) {
        ends++;
        if (endsSentenceOrParagraph(article, chunk)) {
          cleanEnds++;
        }
        assertThat(chunk.nTokens()).isGreaterThanOrEqualTo(spec.maxTokens() * 2 / 5);
      }
    }
    assertThat(ends).isGreaterThan(50);
    assertThat((double) cleanEnds / ends).isGreaterThanOrEqualTo(0.8);
  }

  @Test
  void overlappingChunksRepeatAboutTheOverlap() {
    int overlap = 32;
    ChunkSpec spec = new ChunkSpec(256, overlap);
    Chunker chunker = new Chunker(minilm, spec);
    for (String article : QualityArticles.load()) {
      List<TextChunk> chunks = chunker.chunk(article);
      assertValidChunks(minilm, article, chunks, spec);
      assertThat(chunks.get(0).charStart()).isEqualTo(article.indexOf(article.strip()));
      assertThat(chunks.get(chunks.size() - 1).charEnd())
          .isEqualTo(article.stripTrailing().length());
      for (int i = 1; i < chunks.size(); i++) {
        TextChunk previous = chunks.get(i - 1);
        TextChunk next = chunks.get(i);
        assertThat(next.charStart())
            .isGreaterThan(previous.charStart())
            .isLessThan(previous.charEnd());
        assertThat(next.charEnd()).isGreaterThan(previous.charEnd());
        int repeated = minilm.count(article.substring(next.charStart(), previous.charEnd()));
        assertThat(repeated).isBetween(overlap / 2 - 2, overlap + 2);
      }
    }
  }

  @Test
  void textWithoutWhitespaceIsCutBetweenTokens() {
    String url =
        "https://example.org/"
            + IntStream.range(0, 1500).mapToObj(i -> "part" + i).collect(Collectors.joining("/"));
    ChunkSpec spec = new ChunkSpec(64, 0);
    List<TextChunk> chunks = new Chunker(minilm, spec).chunk(url);
    assertThat(chunks).hasSizeGreaterThan(10);
    assertValidChunks(minilm, url, chunks, spec);
    assertThat(chunks.stream().map(TextChunk::text).collect(Collectors.joining())).isEqualTo(url);

    String xs = "x".repeat(5000);
    List<TextChunk> xChunks = new Chunker(minilm, spec).chunk(xs);
    assertValidChunks(minilm, xs, xChunks, spec);
    assertThat(xChunks.stream().map(TextChunk::text).collect(Collectors.joining())).isEqualTo(xs);
  }

  @Test
  void nonAsciiTextKeepsExactOffsets() {
    String paragraph = "Café au lait, s'il vous plaît! 😀 日本語のテキスト。\n\nNaïve emoji 🎉🎉 test. ";
    String document = paragraph.repeat(40);
    ChunkSpec spec = new ChunkSpec(32, 4);
    List<TextChunk> chunks = new Chunker(minilm, spec).chunk(document);
    assertThat(chunks).hasSizeGreaterThan(10);
    assertValidChunks(minilm, document, chunks, spec);
  }

  @Test
  void aChunkWhoseOwnCountIsOverBudgetIsCutShorter() {
    String document = QualityArticles.load().get(2);
    WordTokenizer inflating = new WordTokenizer(3);
    ChunkSpec spec = new ChunkSpec(40, 0);
    List<TextChunk> chunks = new Chunker(inflating, spec).chunk(document);
    assertThat(chunks).hasSizeGreaterThan(10);
    for (TextChunk chunk : chunks) {
      assertThat(chunk.nTokens()).isEqualTo(inflating.count(chunk.text())).isLessThanOrEqualTo(40);
    }
    assertCoversWithWhitespaceGaps(document, chunks);
  }

  @Test
  void aParagraphEndWinsOverALaterSentenceEnd() {
    String paragraph = "One two three four. Five six seven eight. Nine ten eleven twelve.";
    String document = String.join("\n\n", paragraph, paragraph, paragraph, paragraph);
    Chunker chunker = new Chunker(new WordTokenizer(0), new ChunkSpec(20, 0));
    List<TextChunk> chunks = chunker.chunk(document);
    assertThat(chunks).extracting(TextChunk::text).containsOnly(paragraph).hasSize(4);
  }

  @Test
  void aParagraphEndThatLeavesUnderHalfAChunkIsPassedOver() {
    String document =
        "Short opening line.\n\n" + "Alpha beta gamma delta. ".repeat(10) + "\n\nLast one.";
    Chunker chunker = new Chunker(new WordTokenizer(0), new ChunkSpec(20, 0));
    TextChunk first = chunker.chunk(document).get(0);
    assertThat(first.text()).startsWith("Short opening line.\n\nAlpha").endsWith("delta.");
    assertThat(first.nTokens()).isEqualTo(19);
  }

  @Test
  void chunkingIsDeterministic() {
    String article = QualityArticles.load().get(3);
    Chunker chunker = new Chunker(minilm, new ChunkSpec(128, 16));
    assertThat(chunker.chunk(article)).isEqualTo(chunker.chunk(article));
  }

  @Test
  void aHalfMillionCharDocumentChunksInOnePass() {
    String document = QualityArticles.concatenated(500_000);
    ChunkSpec spec = ChunkSpec.defaults();
    Chunker chunker = new Chunker(minilm, spec);
    chunker.chunk(QualityArticles.load().get(0)); // warm up the JIT and the native library
    long started = System.nanoTime();
    List<TextChunk> chunks = chunker.chunk(document);
    long nanos = System.nanoTime() - started;
    System.out.printf(
        "chunked %d chars into %d chunks of <= %d tokens in %.0f ms: %.0f chars/s%n",
        document.length(),
        chunks.size(),
        spec.maxTokens(),
        nanos / 1e6,
        document.length() / (nanos / 1e9));
    assertValidChunks(minilm, document, chunks, spec);
    assertCoversWithWhitespaceGaps(document, chunks);
  }

  /**
   * Checks what every chunking must hold: exact text, own count within budget, no edge whitespace.
   */
  private static void assertValidChunks(
      TextTokenizer tokenizer, String document, List<TextChunk> chunks, ChunkSpec spec) {
    assertThat(chunks).isNotEmpty();
    for (int i = 0; i < chunks.size(); i++) {
      TextChunk chunk = chunks.get(i);
      assertThat(chunk.ordinal()).isEqualTo(i);
      assertThat(chunk.text()).isEqualTo(document.substring(chunk.charStart(), chunk.charEnd()));
      assertThat(chunk.text()).isNotBlank();
      assertThat(BoundaryKind.isWhitespace(chunk.text().charAt(0))).isFalse();
      assertThat(BoundaryKind.isWhitespace(chunk.text().charAt(chunk.text().length() - 1)))
          .isFalse();
      assertThat(chunk.nTokens()).isEqualTo(tokenizer.count(chunk.text()));
      assertThat(chunk.nTokens()).isLessThanOrEqualTo(spec.maxTokens());
    }
  }

  /** Checks that chunks follow each other and that only whitespace lies outside them. */
  private static void assertCoversWithWhitespaceGaps(String document, List<TextChunk> chunks) {
    StringBuilder rebuilt = new StringBuilder();
    int position = 0;
    for (TextChunk chunk : chunks) {
      assertThat(chunk.charStart()).isGreaterThanOrEqualTo(position);
      String gap = document.substring(position, chunk.charStart());
      boolean allWhitespace = gap.chars().allMatch(c -> BoundaryKind.isWhitespace((char) c));
      assertThat(allWhitespace).as("gap before chunk %d: [%s]", chunk.ordinal(), gap).isTrue();
      rebuilt.append(gap).append(chunk.text());
      position = chunk.charEnd();
    }
    String tail = document.substring(position);
    assertThat(tail).isBlank();
    rebuilt.append(tail);
    assertThat(rebuilt.toString()).isEqualTo(document);
  }

  private static boolean endsSentenceOrParagraph(String document, TextChunk chunk) {
    int end = chunk.charEnd();
    String after = document.substring(end, Math.min(document.length(), end + 200));
    return SENTENCE_END.matcher(chunk.text()).find() || BLANK_LINE_AHEAD.matcher(after).find();
  }
}
