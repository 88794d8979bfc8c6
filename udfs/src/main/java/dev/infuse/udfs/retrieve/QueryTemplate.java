package dev.infuse.udfs.retrieve;

import dev.infuse.udfs.prompt.PromptTemplate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * How a question becomes the text that retrieval searches with ({@code retrieve.query_template}): a
 * versioned template from {@code conf/prompts/} with one {@code user} message, whose rendering is
 * the query. The same query feeds BM25, the dense embedder and the reranker.
 *
 * <p>The template's variables, each absent (so that a {@code {{#name}}} section drops) when the
 * record lacks it:
 *
 * <ul>
 *   <li>{@code question}: the question as written; {@code question_lc}: the same with its first
 *       character in lower case, to follow a context clause (EntiGraph's {@code
 *       uncapitalize_first});
 *   <li>{@code title}: {@code documents.title} of the question's document;
 *   <li>{@code author}: {@code documents.meta['author']}, a "Last, First" name turned to "First
 *       Last" as EntiGraph's {@code format_name} does; {@code year}: {@code
 *       documents.meta['year']};
 *   <li>{@code options}: the answer options as lettered lines, {@code "A. first\nB. second\n"}.
 * </ul>
 *
 * <p>Not serializable: a Spark closure carries the template's JSON and rebuilds it per task.
 *
 * @param id the template's id
 * @param version its version
 * @param template the prompt template; its one {@code user} message is the query
 */
public record QueryTemplate(String id, int version, PromptTemplate template) {

  /** What a question offers a template; any field but {@code question} may be null. */
  public record Fields(
      String question, String title, String author, String year, List<String> options) {}

  /**
   * Wraps a prompt template as a query template.
   *
   * @throws IllegalArgumentException naming the template when it has problems or is not one {@code
   *     user} message
   */
  public static QueryTemplate of(PromptTemplate template) {
    List<String> problems = new ArrayList<>(template.problems());
    if (problems.isEmpty()
        && (template.messages().size() != 1 || !"user".equals(template.messages().get(0).role()))) {
      problems.add(
          "messages: got "
              + template.messages().size()
              + " message(s), expected exactly one with role user (the query text)");
    }
    if (!problems.isEmpty()) {
      throw new IllegalArgumentException(
          "query template "
              + template.id()
              + "@v"
              + template.version()
              + ": "
              + String.join("; ", problems));
    }
    return new QueryTemplate(template.id(), template.version(), template);
  }

  /** {@code id@vN}, as runs and rows record it. */
  public String tag() {
    return id + "@v" + version;
  }

  /** The query for one question. */
  public String render(Fields fields) {
    if (fields.question() == null) {
      throw new IllegalArgumentException("query template " + tag() + ": the question is null");
    }
    Map<String, String> vars = new HashMap<>();
    vars.put("question", fields.question());
    vars.put("question_lc", uncapitalizeFirst(fields.question()));
    vars.put("title", blankToNull(fields.title()));
    vars.put("author", formatName(blankToNull(fields.author())));
    vars.put("year", blankToNull(fields.year()));
    vars.put("options", letteredOptions(fields.options()));
    return template.render(vars).get(0).content();
  }

  /** "Last, First" to "First Last" (one comma only); any other name trimmed as it is. */
  static String formatName(String name) {
    if (name == null) {
      return null;
    }
    String[] parts = name.split(",", -1);
    return parts.length == 2 ? parts[1].strip() + " " + parts[0].strip() : name.strip();
  }

  /** {@code "A. first\nB. second\n"}; null for no options. */
  static String letteredOptions(List<String> options) {
    if (options == null || options.isEmpty()) {
      return null;
    }
    if (options.size() > 26) {
      throw new IllegalArgumentException(
          "query options: got " + options.size() + ", expected at most 26 (letters A to Z)");
    }
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < options.size(); i++) {
      out.append((char) ('A' + i)).append(". ").append(options.get(i)).append('\n');
    }
    return out.toString();
  }

  private static String uncapitalizeFirst(String text) {
    return text.isEmpty()
        ? text
        : text.substring(0, 1).toLowerCase(java.util.Locale.ROOT) + text.substring(1);
  }

  private static String blankToNull(String value) {
    return value == null || value.isBlank() ? null : value.strip();
  }
}
