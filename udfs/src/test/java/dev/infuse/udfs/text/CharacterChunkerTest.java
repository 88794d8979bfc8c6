package dev.infuse.udfs.text;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The character chunker against chunks worked out by hand from LangChain's {@code
 * RecursiveCharacterTextSplitter} (chunk_size 1024, overlap 0, separators {@code ["\n\n", "\n", "
 * ", ""]}, keep_separator, strip_whitespace), as EntiGraph's RAG baseline runs it.
 */
class CharacterChunkerTest {
  private final TextTokenizer words = new WordTokenizer(0);

  /**
   * {@code n} words of nine chars ({@code prefix}, then a zero-padded counter), one space apart.
   */
  private static String line(String prefix, int n) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      String counter = String.valueOf(i);
      out.add(prefix + "0".repeat(9 - prefix.length() - counter.length()) + counter);
    }
    return String.join(" ", out);
  }

  @Test
  void aKnownTextSplitsAtParagraphsThenLinesThenWordsThenCharacters() {
    String lineA = line("a", 60); // 599 chars
    String lineB = line("b", 60);
    String lineC = line("c", 30); // 299 chars
    String longLine = line("w", 150); // 1499 chars, one line: split at words
    String longWord = "x".repeat(1100); // one word: split at characters
    String document =
        "  Title line\n\n"
            + lineA
            + "\n"
            + lineB
            + "\n"
            + lineC
            + "\n\n"
            + longLine
            + "\n\n"
            + longWord
            + "\n";
    List<TextChunk> chunks = new CharacterChunker(words, CharChunkSpec.defaults()).chunk(document);

    assertThat(chunks)
        .extracting(TextChunk::text)
        .containsExactly(
            "Title line",
            // The paragraph of three lines (1500 chars) is split at its lines: A alone, since A
            // and B together are 1201 chars; B and C together are 900.
            lineA,
            lineB + "\n" + lineC,
            // The 1499-char line is split at words: its pieces "\nw…", " w…", … are 10 chars
            // each, so 102 of them fill 1020 <= 1024, and the first chunk is 102 words.
            line("w", 150).substring(0, 102 * 10 - 1),
            line("w", 150).substring(102 * 10),
            // The 1100-char word is split at characters: its paragraph break's second "\n" and
            // 1023 x's make 1024.
            "x".repeat(1023),
            "x".repeat(77));
    assertExact(document, chunks, 1024);
    assertThat(chunks.get(0).charStart()).isEqualTo(2);
    assertThat(chunks.get(1).charStart()).isEqualTo(document.indexOf(lineA));
    assertThat(chunks.get(2).charEnd()).isEqualTo(document.indexOf(lineC) + lineC.length());
    assertThat(chunks.get(5).charStart()).isEqualTo(document.indexOf(longWord));
    assertThat(chunks.get(6).charEnd()).isEqualTo(document.length() - 1);
    assertThat(chunks.get(3).nTokens()).isEqualTo(102);
  }

  @Test
  void theSentenceLevelSplitsALongLineAtSentencesBeforeWords() {
    String first = line("s", 40) + "."; // 400 chars
    String longSentence = line("l", 110) + "!"; // 1100 chars
    String last = "\u201cQuoted " + line("q", 10) + ".\u201d";
    String document = "Intro.\n\n" + first + " " + longSentence + "  " + last;
    List<Separator> withSentences =
        List.of(
            Separator.PARAGRAPH,
            Separator.LINE,
            Separator.SENTENCE,
            Separator.WORD,
            Separator.CHAR);
    List<TextChunk> chunks =
        new CharacterChunker(words, new CharChunkSpec(1024, 0, withSentences)).chunk(document);
    assertThat(chunks)
        .extracting(TextChunk::text)
        .containsExactly(
            "Intro.",
            first,
            // The 1100-char sentence is split at words: 102 pieces " l…" of 10 chars.
            longSentence.substring(0, 102 * 10 - 1),
            // Pieces that came back from a finer split are never merged with their neighbours.
            longSentence.substring(102 * 10),
            last);
    assertExact(document, chunks, 1024);

    // Without the sentence level (LangChain's default), the same line is packed by words.
    List<TextChunk> byWords = new CharacterChunker(words, CharChunkSpec.defaults()).chunk(document);
    assertThat(byWords.get(1).text()).startsWith(first + " " + "l00000000");
    assertExact(document, byWords, 1024);
  }

  @Test
  void smallChunksMergeGreedilyAndOverlapRepeatsTheLastPieces() {
    String document = "one two three four five six seven";
    CharacterChunker noOverlap =
        new CharacterChunker(words, new CharChunkSpec(16, 0, Separator.LANGCHAIN_DEFAULT));
    assertThat(noOverlap.chunk(document))
        .extracting(TextChunk::text)
        .containsExactly("one two three", "four five six", "seven");
    CharacterChunker overlap =
        new CharacterChunker(words, new CharChunkSpec(16, 6, Separator.LANGCHAIN_DEFAULT));
    // LangChain keeps the previous pieces that total at most 6 chars: " three" (6), " five" (5).
    List<TextChunk> chunks = overlap.chunk(document);
    assertThat(chunks)
        .extracting(TextChunk::text)
        .containsExactly("one two three", "three four five", "five six seven");
    assertExact(document, chunks, 16);
  }

  @Test
  void surrogatePairsCountAsOneCharacterAndAreNeverCut() {
    String document = "\uD83D\uDE00".repeat(40); // 40 emoji, 80 UTF-16 units
    List<TextChunk> chunks =
        new CharacterChunker(words, new CharChunkSpec(16, 0, Separator.LANGCHAIN_DEFAULT))
            .chunk(document);
    assertThat(chunks).extracting(TextChunk::charEnd).containsExactly(32, 64, 80);
    assertExact(document, chunks, 16);
  }

  @Test
  void blankDocumentsHaveNoChunksAndEveryQualityArticleChunksExactly() {
    CharacterChunker chunker = new CharacterChunker(words, CharChunkSpec.defaults());
    assertThat(chunker.chunk("")).isEmpty();
    assertThat(chunker.chunk(" \n\n \u00a0\n")).isEmpty();
    TextTokenizer minilm = Tokenizers.defaultTokenizer();
    CharacterChunker real = new CharacterChunker(minilm, CharChunkSpec.defaults());
    for (String article : QualityArticles.load()) {
      List<TextChunk> chunks = real.chunk(article);
      assertExact(article, chunks, 1024);
      for (TextChunk chunk : chunks) {
        assertThat(chunk.nTokens()).isEqualTo(minilm.count(chunk.text()));
      }
      // Without overlap, chunks follow each other and only whitespace lies between them.
      for (int i = 1; i < chunks.size(); i++) {
        assertThat(article.substring(chunks.get(i - 1).charEnd(), chunks.get(i).charStart()))
            .isBlank();
      }
    }
  }

  @Test
  void badSpecsNameTheOptionAndTheExpectedValue() {
    assertThatThrownBy(() -> new CharChunkSpec(8, 0, Separator.LANGCHAIN_DEFAULT))
        .hasMessage("chunk.max_chars: got 8, expected an integer >= 16");
    assertThatThrownBy(() -> new CharChunkSpec(100, 100, Separator.LANGCHAIN_DEFAULT))
        .hasMessage(
            "chunk.overlap_chars: got 100, expected an integer >= 0 and < chunk.max_chars (100)");
    assertThatThrownBy(
            () -> new CharChunkSpec(100, 0, List.of(Separator.PARAGRAPH, Separator.WORD)))
        .hasMessage(
            "chunk.separators: got [paragraph,word], expected a list ending with char (so that"
                + " every chunk fits)");
    assertThatThrownBy(
            () ->
                new CharChunkSpec(100, 0, List.of(Separator.WORD, Separator.WORD, Separator.CHAR)))
        .hasMessageContaining("expected each separator at most once");
    assertThatThrownBy(() -> Separator.of("clause"))
        .hasMessage("separator: got 'clause', expected one of paragraph,line,sentence,word,char");
    assertThat(CharChunkSpec.defaults())
        .isEqualTo(
            new CharChunkSpec(
                1024,
                0,
                List.of(Separator.PARAGRAPH, Separator.LINE, Separator.WORD, Separator.CHAR)));
  }

  /** Exact substrings in order, trimmed, none empty, none over {@code maxChars} code points. */
  private static void assertExact(String document, List<TextChunk> chunks, int maxChars) {
    for (int i = 0; i < chunks.size(); i++) {
      TextChunk chunk = chunks.get(i);
      assertThat(chunk.ordinal()).isEqualTo(i);
      assertThat(chunk.text()).isEqualTo(document.substring(chunk.charStart(), chunk.charEnd()));
      assertThat(chunk.text()).isNotBlank().isEqualTo(chunk.text().strip());
      assertThat(chunk.text().codePointCount(0, chunk.text().length()))
          .isLessThanOrEqualTo(maxChars);
      if (i > 0) {
        assertThat(chunk.charStart()).isGreaterThan(chunks.get(i - 1).charStart());
      }
    }
  }
}
