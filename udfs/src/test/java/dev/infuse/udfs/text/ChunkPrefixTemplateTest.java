package dev.infuse.udfs.text;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.infuse.udfs.retrieve.ChunkText;
import dev.infuse.udfs.text.ChunkPrefixTemplate.DocumentFields;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ChunkPrefixTemplateTest {
  private static final DocumentFields FULL =
      new DocumentFields(
          "quality:20001",
          "quality",
          "The Sun Also Rises",
          "QuALITY.v1.0.1.htmlstripped.dev",
          Map.of("author", "Hemingway, Ernest", "year", "1926", "topic", "fiction"));

  @Test
  void entigraphsTemplateRendersTitleAuthorAndYearAsEntigraphDoes() {
    ChunkPrefixTemplate template = ChunkPrefixTemplate.parse(ChunkPrefixTemplate.ENTIGRAPH);
    String prefix = template.render(FULL);
    assertThat(prefix)
        .isEqualTo("Title: The Sun Also Rises\nAuthor: Ernest Hemingway\nYear Written: 1926\n\n");
    assertThat(ChunkText.indexed(prefix, "Chunk text."))
        .isEqualTo(
            "Title: The Sun Also Rises\nAuthor: Ernest Hemingway\nYear Written: 1926\n\nChunk text.");
    assertThat(ChunkText.indexed(null, "Chunk text.")).isEqualTo("Chunk text.");
  }

  @Test
  void aLineWithAMissingFieldIsLeftOutAndABlankPrefixIsNone() {
    ChunkPrefixTemplate template = ChunkPrefixTemplate.parse(ChunkPrefixTemplate.ENTIGRAPH);
    DocumentFields noAuthorNoYear =
        new DocumentFields("quality:leval-quality-00", "quality", "LOST IN TRANSLATION", "s", null);
    assertThat(template.render(noAuthorNoYear)).isEqualTo("Title: LOST IN TRANSLATION\n\n");
    DocumentFields nothing = new DocumentFields("d:1", "d", " ", "s", Map.of());
    assertThat(template.render(nothing)).isNull();
    assertThat(ChunkPrefixTemplate.parse("{title}").render(nothing)).isNull();
  }

  @Test
  void everyFieldAndLiteralBracesRender() {
    ChunkPrefixTemplate template =
        ChunkPrefixTemplate.parse(
            "[{doc_id}|{corpus}|{source}] {{{meta:topic}}} by {author}, {year}: ");
    assertThat(template.render(FULL))
        .isEqualTo(
            "[quality:20001|quality|QuALITY.v1.0.1.htmlstripped.dev] {fiction} by Ernest"
                + " Hemingway, 1926: ");
    assertThat(ChunkPrefixTemplate.formatName(" Ursula K. Le Guin "))
        .isEqualTo("Ursula K. Le Guin");
    assertThat(ChunkPrefixTemplate.formatName("A, B, C")).isEqualTo("A, B, C");
  }

  @Test
  void badTemplatesNameTheOptionAndTheFieldsItMayUse() {
    assertThat(ChunkPrefixTemplate.problem("Title: {name}"))
        .isEqualTo(
            "chunk.prefix_template: got unknown field {name}, expected text with fields among"
                + " {title}, {author}, {year}, {doc_id}, {corpus}, {source}, {meta:KEY}");
    assertThat(ChunkPrefixTemplate.problem("Title: {title"))
        .contains("an unclosed '{' at offset 7");
    assertThat(ChunkPrefixTemplate.problem("a } b")).contains("a lone '}' at offset 2");
    assertThat(ChunkPrefixTemplate.problem("{meta:}")).contains("unknown field {meta:}");
    assertThat(ChunkPrefixTemplate.problem(ChunkPrefixTemplate.ENTIGRAPH)).isNull();
    assertThatThrownBy(() -> ChunkPrefixTemplate.parse("{meta:KEY"))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
