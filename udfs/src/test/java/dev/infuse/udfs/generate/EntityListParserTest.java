package dev.infuse.udfs.generate;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class EntityListParserTest {
  @Test
  void namesAreTrimmedAndDeduplicatedIgnoringCase() {
    ParseResult<String> result =
        EntityListParser.parse("[\" Korvin \", \"the Ruler\", \"KORVIN\", \"Earth\\n Central\"]");
    assertThat(result.values()).containsExactly("Korvin", "the Ruler", "Earth Central");
    assertThat(result.problems()).isEmpty();
  }

  @Test
  void fencedWrappedAndObjectItemsParse() {
    assertThat(EntityListParser.parse("Entities:\n```json\n[\"A\", \"B\"]\n```").values())
        .containsExactly("A", "B");
    assertThat(EntityListParser.parse("{\"entities\": [\"A\", {\"name\": \"B\"}]}").values())
        .containsExactly("A", "B");
  }

  @Test
  void badItemsAreReportedAndGarbageFails() {
    ParseResult<String> result = EntityListParser.parse("[\"A\", 3, \"\", {\"id\": 1}, null]");
    assertThat(result.values()).containsExactly("A");
    assertThat(result.problems())
        .containsExactly(
            "item 2: not a string, got number",
            "item 3: blank name",
            "item 4: an object without a name (keys: id)",
            "item 5: not a string, got null");
    assertThat(EntityListParser.parse("Korvin, Ruler").ok()).isFalse();
    assertThat(EntityListParser.parse("{\"people\": []}").reason())
        .contains("without an entities array");
    assertThat(EntityListParser.parse(null).reason()).isEqualTo("empty output");
  }

  @Test
  void theSummaryOfAnEntigraphOutputIsReadAndItsAbsenceNamed() {
    String raw = "```json\n{\"summary\": \" A story. \", \"entities\": [\"A\", \"B\"]}\n```";
    assertThat(EntityListParser.summary(raw).values()).containsExactly("A story.");
    assertThat(EntityListParser.parse(raw).values()).containsExactly("A", "B");
    assertThat(EntityListParser.summary("{\"entities\": [\"A\"]}").reason())
        .contains("\"summary\"")
        .contains("entities");
    assertThat(EntityListParser.summary("[\"A\"]").ok()).isFalse();
    assertThat(EntityListParser.summary("").reason()).isEqualTo("empty output");
  }
}
