package dev.infuse.udfs.text;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The metadata prefix of a document's chunks ({@code chunk.prefix_template}), rendered once per
 * document and stored beside each chunk in {@code chunks.context_prefix}; what is indexed and
 * embedded is the prefix followed by the chunk text ({@code ChunkText.indexed}).
 *
 * <p>Fields, in braces: {@code {title}}, {@code {doc_id}}, {@code {corpus}}, {@code {source}},
 * {@code {meta:KEY}} (any key of {@code documents.meta}, as stored), {@code {year}} (the same as
 * {@code {meta:year}}) and {@code {author}}: {@code meta.author} as EntiGraph formats it ({@code
 * format_name}): "Lastname, Firstname" becomes "Firstname Lastname" when the name holds exactly one
 * comma, otherwise it is only trimmed. {@code {{} and {@code }}} are literal braces.
 *
 * <p>A line of the template is kept only if every field in it has a value (not null, not blank), so
 * that "Author: {author}" disappears for a document without an author rather than reading "Author:
 * ". A prefix that is left blank is none at all (null). EntiGraph's QuALITY prefix is {@link
 * #ENTIGRAPH}.
 */
public final class ChunkPrefixTemplate implements Serializable {
  private static final long serialVersionUID = 1L;

  /** EntiGraph's {@code get_metadata_prefix_for_quality_document}, field for field. */
  public static final String ENTIGRAPH =
      "Title: {title}\nAuthor: {author}\nYear Written: {year}\n\n";

  static final List<String> FIELDS =
      List.of("title", "author", "year", "doc_id", "corpus", "source", "meta:KEY");

  private final String template;

  /** Each line: literal and field parts, in order; a field part is marked by a leading NUL. */
  private final List<List<String>> lines;

  private ChunkPrefixTemplate(String template, List<List<String>> lines) {
    this.template = template;
    this.lines = lines;
  }

  /**
   * Parses a template.
   *
   * @throws IllegalArgumentException naming {@code chunk.prefix_template}, the bad part and the
   *     fields it may use
   */
  public static ChunkPrefixTemplate parse(String template) {
    Objects.requireNonNull(template, "template");
    List<List<String>> lines = new ArrayList<>();
    List<String> line = new ArrayList<>();
    StringBuilder literal = new StringBuilder();
    for (int i = 0; i < template.length(); i++) {
      char c = template.charAt(i);
      if (c == '{' && i + 1 < template.length() && template.charAt(i + 1) == '{') {
        literal.append('{');
        i++;
      } else if (c == '}' && i + 1 < template.length() && template.charAt(i + 1) == '}') {
        literal.append('}');
        i++;
      } else if (c == '{') {
        int close = template.indexOf('}', i);
        if (close < 0) {
          throw invalid("an unclosed '{' at offset " + i);
        }
        String field = template.substring(i + 1, close);
        if (!known(field)) {
          throw invalid("unknown field {" + field + "}");
        }
        flush(literal, line);
        line.add('\0' + field);
        i = close;
      } else if (c == '}') {
        throw invalid("a lone '}' at offset " + i + " (write '}}' for a brace)");
      } else {
        literal.append(c);
        if (c == '\n') {
          flush(literal, line);
          lines.add(List.copyOf(line));
          line = new ArrayList<>();
        }
      }
    }
    flush(literal, line);
    if (!line.isEmpty()) {
      lines.add(List.copyOf(line));
    }
    return new ChunkPrefixTemplate(template, List.copyOf(lines));
  }

  /** What is wrong with a template, naming the option; null when it parses. */
  public static String problem(String template) {
    try {
      parse(template);
      return null;
    } catch (IllegalArgumentException e) {
      return e.getMessage();
    }
  }

  /** The template as configured. */
  public String template() {
    return template;
  }

  /** The document's prefix, or null if nothing but whitespace is left of it. */
  public String render(DocumentFields document) {
    StringBuilder prefix = new StringBuilder();
    for (List<String> line : lines) {
      StringBuilder rendered = new StringBuilder();
      boolean complete = true;
      for (String part : line) {
        if (part.startsWith("\0")) {
          String value = document.field(part.substring(1));
          if (value == null || value.isBlank()) {
            complete = false;
            break;
          }
          rendered.append(value);
        } else {
          rendered.append(part);
        }
      }
      if (complete) {
        prefix.append(rendered);
      }
    }
    return prefix.toString().isBlank() ? null : prefix.toString();
  }

  /** EntiGraph's {@code format_name}: "Lastname, Firstname" to "Firstname Lastname". */
  static String formatName(String name) {
    if (name == null) {
      return null;
    }
    String[] parts = name.split(",", -1);
    return parts.length == 2 ? parts[1].strip() + " " + parts[0].strip() : name.strip();
  }

  private static boolean known(String field) {
    return field.startsWith("meta:") && field.length() > "meta:".length()
        || FIELDS.contains(field) && !field.equals("meta:KEY");
  }

  private static void flush(StringBuilder literal, List<String> line) {
    if (literal.length() > 0) {
      line.add(literal.toString());
      literal.setLength(0);
    }
  }

  private static IllegalArgumentException invalid(String what) {
    return new IllegalArgumentException(
        "chunk.prefix_template: got "
            + what
            + ", expected text with fields among "
            + String.join(", ", FIELDS.stream().map(f -> "{" + f + "}").toList()));
  }

  /** The fields of one document a template can use. */
  public record DocumentFields(
      String docId, String corpus, String title, String source, Map<String, String> meta) {
    public DocumentFields {
      meta = meta == null ? Map.of() : meta;
    }

    String field(String name) {
      return switch (name) {
        case "title" -> title;
        case "doc_id" -> docId;
        case "corpus" -> corpus;
        case "source" -> source;
        case "year" -> meta.get("year");
        case "author" -> formatName(meta.get("author"));
        default -> meta.get(name.substring("meta:".length()));
      };
    }
  }
}
