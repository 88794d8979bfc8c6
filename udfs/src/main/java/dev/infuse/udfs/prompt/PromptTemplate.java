package dev.infuse.udfs.prompt;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A versioned chat prompt, stored as YAML under {@code conf/prompts/}. Placeholders are {@code
 * {{name}}}; the id and version are stored on every row the prompt produces, and the version is
 * bumped on any change that can alter outputs.
 *
 * <p>Optional text is a section, as in Mustache: {@code {{#name}}...{{/name}}} is kept only when
 * {@code name} has a non-blank value, {@code {{^name}}...{{/name}}} only when it has none. Sections
 * nest, and a placeholder inside a dropped section needs no value: a query template can say {@code
 * {{#author}}, written by {{author}}{{/author}}} for records that may lack an author.
 *
 * @param id unique name, e.g. {@code gen-qa/extractive}
 * @param version an integer >= 1
 * @param description what the prompt is for
 * @param messages the chat messages, in order
 */
public record PromptTemplate(String id, int version, String description, List<Message> messages) {
  private static final Pattern PLACEHOLDER =
      Pattern.compile("\\{\\{\\s*([A-Za-z_][A-Za-z0-9_]*)\\s*}}");

  /** A placeholder or a section tag: group 1 is {@code #}, {@code ^}, {@code /} or empty. */
  private static final Pattern TAG =
      Pattern.compile("\\{\\{\\s*([#^/]?)\\s*([A-Za-z_][A-Za-z0-9_]*)\\s*}}");

  private static final Set<String> ROLES = Set.of("system", "user", "assistant");

  /**
   * @param role system, user or assistant
   */
  public record Message(String role, String content) {}

  /** The placeholder and section names the messages use, in order of first use. */
  public Set<String> placeholders() {
    Set<String> names = new LinkedHashSet<>();
    for (Message message : messages == null ? List.<Message>of() : messages) {
      Matcher matcher = TAG.matcher(message.content() == null ? "" : message.content());
      while (matcher.find()) {
        names.add(matcher.group(2));
      }
    }
    return names;
  }

  /**
   * The messages with every {@code {{name}}} replaced by its value, so the same template serves an
   * HTTP model and the record of what was asked. Values are inserted verbatim (no re-expansion of
   * braces they hold); variables the template does not use are ignored.
   *
   * @throws IllegalArgumentException naming {@code id@vN} and each placeholder without a (non-null)
   *     value
   */
  public List<Message> render(Map<String, String> vars) {
    Map<String, String> values = vars == null ? Map.of() : vars;
    List<String> expanded = new ArrayList<>(messages.size());
    Set<String> missing = new LinkedHashSet<>();
    for (Message message : messages) {
      String text = expandSections(message.content(), values);
      expanded.add(text);
      Matcher matcher = PLACEHOLDER.matcher(text);
      while (matcher.find()) {
        if (values.get(matcher.group(1)) == null) {
          missing.add(matcher.group(1));
        }
      }
    }
    if (!missing.isEmpty()) {
      throw new IllegalArgumentException(
          "prompt "
              + id
              + "@v"
              + version
              + ": no value for placeholder(s) "
              + String.join(", ", missing)
              + "; expected every {{name}} the template uses");
    }
    List<Message> rendered = new ArrayList<>(messages.size());
    for (int i = 0; i < messages.size(); i++) {
      Matcher matcher = PLACEHOLDER.matcher(expanded.get(i));
      StringBuilder out = new StringBuilder();
      while (matcher.find()) {
        matcher.appendReplacement(out, Matcher.quoteReplacement(values.get(matcher.group(1))));
      }
      matcher.appendTail(out);
      rendered.add(new Message(messages.get(i).role(), out.toString()));
    }
    return List.copyOf(rendered);
  }

  /**
   * The text with its sections resolved against {@code vars}: kept sections lose their tags,
   * dropped ones vanish with their content; plain placeholders are left for {@link #render}.
   */
  private String expandSections(String content, Map<String, String> vars) {
    StringBuilder out = new StringBuilder();
    List<String> open = new ArrayList<>();
    List<Boolean> kept = new ArrayList<>(); // per open section: it and every enclosing one kept
    Matcher matcher = TAG.matcher(content);
    int at = 0;
    while (matcher.find()) {
      boolean keep = kept.isEmpty() || kept.get(kept.size() - 1);
      if (keep) {
        out.append(content, at, matcher.start());
      }
      at = matcher.end();
      String kind = matcher.group(1);
      String name = matcher.group(2);
      if (kind.isEmpty()) {
        if (keep) {
          out.append(matcher.group());
        }
      } else if (kind.equals("/")) {
        if (open.isEmpty() || !open.get(open.size() - 1).equals(name)) {
          throw new IllegalArgumentException(
              "prompt " + id + "@v" + version + ": " + sectionProblem(content));
        }
        open.remove(open.size() - 1);
        kept.remove(kept.size() - 1);
      } else {
        String value = vars.get(name);
        boolean present = value != null && !value.isBlank();
        open.add(name);
        kept.add(keep && (kind.equals("#") == present));
      }
    }
    if (!open.isEmpty()) {
      throw new IllegalArgumentException(
          "prompt " + id + "@v" + version + ": " + sectionProblem(content));
    }
    out.append(content, at, content.length());
    return out.toString();
  }

  /** What is wrong with the sections of {@code content}, or null when they are balanced. */
  private static String sectionProblem(String content) {
    List<String> open = new ArrayList<>();
    Matcher matcher = TAG.matcher(content);
    while (matcher.find()) {
      String kind = matcher.group(1);
      String name = matcher.group(2);
      if (kind.equals("/")) {
        if (open.isEmpty() || !open.get(open.size() - 1).equals(name)) {
          return "section end {{/"
              + name
              + "}} "
              + (open.isEmpty()
                  ? "has no open section"
                  : "closes {{#" + open.get(open.size() - 1) + "}}")
              + ", expected each {{#name}} or {{^name}} closed by its own {{/name}}";
        }
        open.remove(open.size() - 1);
      } else if (!kind.isEmpty()) {
        open.add(name);
      }
    }
    return open.isEmpty()
        ? null
        : "section {{#"
            + open.get(open.size() - 1)
            + "}} is never closed, expected each {{#name}} or {{^name}} closed by its own {{/name}}";
  }

  /** Every problem with the template, each naming the field; empty when it is usable. */
  public List<String> problems() {
    List<String> problems = new ArrayList<>();
    if (id == null || id.isBlank()) {
      problems.add("id: missing, expected a unique prompt name");
    }
    if (version < 1) {
      problems.add("version: got " + version + ", expected an integer >= 1");
    }
    if (messages == null || messages.isEmpty()) {
      problems.add("messages: missing, expected at least one {role, content}");
      return problems;
    }
    for (int i = 0; i < messages.size(); i++) {
      Message message = messages.get(i);
      if (message.role() == null || !ROLES.contains(message.role())) {
        problems.add(
            "messages["
                + i
                + "].role: got "
                + message.role()
                + ", expected one of system, user, assistant");
      }
      String content = message.content();
      if (content == null || content.isBlank()) {
        problems.add("messages[" + i + "].content: missing, expected the message text");
      } else if (countOf(content, "{{") != TAG.matcher(content).results().count()) {
        problems.add(
            "messages["
                + i
                + "].content: has a malformed placeholder, expected {{name}} with a name of"
                + " letters, digits and underscores");
      } else if (sectionProblem(content) != null) {
        problems.add("messages[" + i + "].content: " + sectionProblem(content));
      }
    }
    return problems;
  }

  private static long countOf(String text, String needle) {
    long count = 0;
    for (int at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + needle.length())) {
      count++;
    }
    return count;
  }
}
