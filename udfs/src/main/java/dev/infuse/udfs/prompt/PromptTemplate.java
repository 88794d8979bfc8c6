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
 * @param id unique name, e.g. {@code gen-qa/extractive}
 * @param version an integer >= 1
 * @param description what the prompt is for
 * @param messages the chat messages, in order
 */
public record PromptTemplate(String id, int version, String description, List<Message> messages) {
  private static final Pattern PLACEHOLDER =
      Pattern.compile("\\{\\{\\s*([A-Za-z_][A-Za-z0-9_]*)\\s*}}");
  private static final Set<String> ROLES = Set.of("system", "user", "assistant");

  /**
   * @param role system, user or assistant
   */
  public record Message(String role, String content) {}

  /** The placeholder names the messages use, in order of first use. */
  public Set<String> placeholders() {
    Set<String> names = new LinkedHashSet<>();
    for (Message message : messages == null ? List.<Message>of() : messages) {
      Matcher matcher = PLACEHOLDER.matcher(message.content() == null ? "" : message.content());
      while (matcher.find()) {
        names.add(matcher.group(1));
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
    Set<String> missing = new LinkedHashSet<>();
    for (String name : placeholders()) {
      if (vars == null || vars.get(name) == null) {
        missing.add(name);
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
    for (Message message : messages) {
      Matcher matcher = PLACEHOLDER.matcher(message.content());
      StringBuilder out = new StringBuilder();
      while (matcher.find()) {
        matcher.appendReplacement(out, Matcher.quoteReplacement(vars.get(matcher.group(1))));
      }
      matcher.appendTail(out);
      rendered.add(new Message(message.role(), out.toString()));
    }
    return List.copyOf(rendered);
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
      } else if (countOf(content, "{{") != PLACEHOLDER.matcher(content).results().count()) {
        problems.add(
            "messages["
                + i
                + "].content: has a malformed placeholder, expected {{name}} with a name of"
                + " letters, digits and underscores");
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
