package dev.infuse.udfs.retrieve;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.infuse.udfs.prompt.PromptTemplate;
import dev.infuse.udfs.prompt.PromptTemplate.Message;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Query templates: one user message, with optional sections for metadata a record may lack. */
class QueryTemplateTest {
  @Test
  void aQueryTemplateIsOneUserMessageAndNeedsTheQuestion() {
    PromptTemplate chat =
        new PromptTemplate(
            "query/chat",
            2,
            "two messages",
            List.of(new Message("system", "Search."), new Message("user", "{{question}}")));
    assertThatThrownBy(() -> QueryTemplate.of(chat))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "query template query/chat@v2: messages: got 2 message(s), expected exactly one with"
                + " role user (the query text)");
    PromptTemplate unclosed =
        new PromptTemplate(
            "query/bad", 1, "unclosed", List.of(new Message("user", "{{#title}}{{question}}")));
    assertThatThrownBy(() -> QueryTemplate.of(unclosed))
        .hasMessageContaining("section {{#title}} is never closed");
    QueryTemplate plain =
        QueryTemplate.of(
            new PromptTemplate(
                "query/q", 1, "q", List.of(new Message("user", "{{question}} ({{title}})"))));
    assertThatThrownBy(() -> plain.render(new QueryTemplate.Fields("Why?", null, null, null, null)))
        .hasMessageContaining("query/q@v1: no value for placeholder(s) title");
  }

  @Test
  void sectionsKeepOrDropTheirTextAndNest() {
    PromptTemplate template =
        new PromptTemplate(
            "t",
            1,
            "sections",
            List.of(
                new Message(
                    "user", "{{#a}}A={{a}}{{#b}}, B={{ b }}{{/b}};{{/a}}{{^a}}no a{{/a}} {{c}}")));
    assertThat(template.problems()).isEmpty();
    assertThat(template.render(Map.of("a", "1", "b", "2", "c", "{{#a}}")).get(0).content())
        .isEqualTo("A=1, B=2; {{#a}}");
    assertThat(template.render(Map.of("a", "1", "c", "x")).get(0).content()).isEqualTo("A=1; x");
    assertThat(template.render(Map.of("a", "  ", "b", "2", "c", "x")).get(0).content())
        .isEqualTo("no a x");
    assertThat(
            new PromptTemplate("t", 1, "d", List.of(new Message("user", "{{#a}}x{{/b}}{{/a}}")))
                .problems())
        .containsExactly(
            "messages[0].content: section end {{/b}} closes {{#a}}, expected each {{#name}} or"
                + " {{^name}} closed by its own {{/name}}");
  }
}
