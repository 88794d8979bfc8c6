package dev.infuse.udfs.generate;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class QaPairsParserTest {
  @Test
  void aPlainArrayParses() {
    ParseResult<QaPair> result =
        QaPairsParser.parse(
            "[{\"question\": \"Who?\", \"answer\": \"Korvin\"}, {\"question\": \" When? \", \"answer\": \"1900\"}]");
    assertThat(result.ok()).isTrue();
    assertThat(result.problems()).isEmpty();
    assertThat(result.values())
        .containsExactly(new QaPair("Who?", "Korvin"), new QaPair("When?", "1900"));
  }

  @Test
  void fencesAndLeadingProseAreSkipped() {
    String raw =
        "Here are the pairs you asked for:\n\n```json\n[{\"question\": \"Who?\", \"answer\": \"Korvin\"}]\n```\n"
            + "Let me know if you need more.";
    assertThat(QaPairsParser.parse(raw).values()).containsExactly(new QaPair("Who?", "Korvin"));
    assertThat(
            QaPairsParser.parse(
                    "Sure! [{\"question\": \"Who?\", \"answer\": \"Korvin\"}] Hope this helps.")
                .values())
        .containsExactly(new QaPair("Who?", "Korvin"));
  }

  @Test
  void objectWrappersFromJsonModeAreAccepted() {
    assertThat(
            QaPairsParser.parse("{\"pairs\": [{\"question\": \"Q1?\", \"answer\": \"A1\"}]}")
                .values())
        .containsExactly(new QaPair("Q1?", "A1"));
    assertThat(
            QaPairsParser.parse("{\"qa\": [{\"question\": \"Q1?\", \"answer\": \"A1\"}]}").values())
        .containsExactly(new QaPair("Q1?", "A1"));
    assertThat(QaPairsParser.parse("{\"question\": \"Q1?\", \"answer\": \"A1\"}").values())
        .containsExactly(new QaPair("Q1?", "A1"));
    ParseResult<QaPair> other = QaPairsParser.parse("{\"items\": []}");
    assertThat(other.ok()).isFalse();
    assertThat(other.reason()).contains("without a pairs or qa array").contains("items");
  }

  @Test
  void badItemsAreReportedOneByOneAndGoodOnesKept() {
    String raw =
        "[{\"question\": \"Q1?\", \"answer\": \"A1\"}, {\"question\": \"Q2?\"}, \"just text\","
            + " {\"question\": \"  \", \"answer\": \"A4\"}, {\"question\": \"Q5?\", \"answer\": 5},"
            + " {\"question\": \"q1?\", \"answer\": \"again\"}, {\"question\": \"Q7?\", \"answer\": \"A7\"}]";
    ParseResult<QaPair> result = QaPairsParser.parse(raw);
    assertThat(result.values()).containsExactly(new QaPair("Q1?", "A1"), new QaPair("Q7?", "A7"));
    assertThat(result.problems())
        .containsExactly(
            "item 2: missing answer",
            "item 3: not an object, got string",
            "item 4: blank question",
            "item 5: answer is not a string, got number",
            "item 6: repeats the question of item 1");
  }

  @Test
  void aTruncatedArrayKeepsItsCompleteItems() {
    String raw =
        "[{\"question\": \"Q1?\", \"answer\": \"A1\"}, {\"question\": \"Q2?\", \"answer\": \"A2\"}, {\"quest";
    ParseResult<QaPair> result = QaPairsParser.parse(raw);
    assertThat(result.values()).hasSize(2);
    assertThat(result.reason()).contains("breaks off after item 2");
  }

  @Test
  void garbageFailsWithAReasonAndNeverThrows() {
    for (String raw :
        new String[] {
          null, "", "   ", "no json here", "[1, 2", "{\"pairs\": 3}", "[]", "}{][", "```"
        }) {
      ParseResult<QaPair> result = QaPairsParser.parse(raw);
      assertThat(result.ok()).as(String.valueOf(raw)).isFalse();
      assertThat(result.reason()).as(String.valueOf(raw)).isNotBlank();
    }
    assertThat(QaPairsParser.parse("[]").reason()).isEqualTo("an empty array");
    assertThat(QaPairsParser.parse("no json here").reason()).contains("no JSON array");
  }
}
