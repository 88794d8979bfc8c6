package dev.infuse.jobs.retrieve;

import static org.assertj.core.api.Assertions.assertThat;

import dev.infuse.jobs.generate.PromptLibrary;
import dev.infuse.udfs.retrieve.QueryTemplate;
import java.nio.file.Path;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;

/** The query templates of conf/prompts/, rendered for questions with and without metadata. */
class QueryTemplateFilesTest {
  private static QueryTemplate load(String id) {
    return QueryTemplate.of(
        PromptLibrary.load(
                new Configuration(), Path.of("..", "conf", "prompts").toAbsolutePath().toString())
            .get(id));
  }

  private static final List<String> OPTIONS =
      List.of("He is a spy", "He is lost", "He wants to trade", "He is a prisoner");

  @Test
  void theDefaultQueryIsTheQuestionAlone() {
    QueryTemplate question = load("query/question");
    assertThat(question.tag()).isEqualTo("query/question@v1");
    assertThat(
            question.render(
                new QueryTemplate.Fields(
                    "Why is Korvin in a cell?",
                    "Lost in Translation",
                    "Harris, Larry M.",
                    "1961",
                    OPTIONS)))
        .isEqualTo("Why is Korvin in a cell?");
  }

  @Test
  void entiGraphsQueryHasTheArticleContextAndTheLetteredChoices() {
    QueryTemplate entigraph = load("query/entigraph");
    assertThat(entigraph.tag()).isEqualTo("query/entigraph@v1");
    // Title, author ("Last, First" as EntiGraph's format_name turns it) and year.
    assertThat(
            entigraph.render(
                new QueryTemplate.Fields(
                    "Why is Korvin in a cell?",
                    "Lost in Translation",
                    "Harris, Larry M.",
                    "1961",
                    OPTIONS)))
        .isEqualTo(
            "### Question\n"
                + "In the context of \"Lost in Translation\", written by Larry M. Harris in 1961,"
                + " why is Korvin in a cell? There is only one correct choice.\n\n"
                + "### Choices\n"
                + "A. He is a spy\nB. He is lost\nC. He wants to trade\nD. He is a prisoner\n");
    // No author or year (the demo's QuALITY sample): those clauses are left out, not left empty.
    assertThat(
            entigraph.render(
                new QueryTemplate.Fields(
                    "Why is Korvin in a cell?", "LOST IN TRANSLATION", null, " ", OPTIONS)))
        .isEqualTo(
            "### Question\n"
                + "In the context of \"LOST IN TRANSLATION\", why is Korvin in a cell?"
                + " There is only one correct choice.\n\n"
                + "### Choices\n"
                + "A. He is a spy\nB. He is lost\nC. He wants to trade\nD. He is a prisoner\n");
    // No title: the question as written. No options (FinanceBench): no choices and no "one
    // correct".
    assertThat(
            entigraph.render(
                new QueryTemplate.Fields(
                    "What was 3M's FY2018 capital expenditure?", null, "3M", "2018", List.of())))
        .isEqualTo("### Question\nWhat was 3M's FY2018 capital expenditure?");
  }
}
