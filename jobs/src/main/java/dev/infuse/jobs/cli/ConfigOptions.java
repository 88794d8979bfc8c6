package dev.infuse.jobs.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.infuse.jobs.config.ConfigLoader;
import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * The one binder of options to config keys ({@link ConfigKey}). Options given on the command line
 * set their keys as typed values: strings as they are, lists as lists of strings, numbers and
 * booleans as YAML scalars. Options not given set nothing, so a key keeps what the files and {@code
 * --set} gave it.
 */
final class ConfigOptions {
  private ConfigOptions() {}

  /** Sets the key of every bound option the user gave. */
  static void bind(CommandSpec spec, ConfigLoader loader) {
    CommandLine.ParseResult parsed = spec.commandLine().getParseResult();
    for (OptionSpec option : spec.options()) {
      String key = key(option);
      if (key == null || parsed == null || !parsed.hasMatchedOption(option)) {
        continue;
      }
      Object value = option.getValue();
      if (value instanceof String text) {
        loader.setString(key, text);
      } else if (value instanceof List<?> list) {
        loader.setStrings(key, list);
      } else if (value != null) {
        loader.set(key + "=" + value);
      }
    }
  }

  /**
   * Ends the description of every bound option of {@code command} and its subcommands with its key
   * and its default from {@code defaults}, so the help cannot drift from {@code defaults.yaml}.
   */
  static void describe(CommandLine command, ObjectNode defaults) {
    CommandSpec spec = command.getCommandSpec();
    List<OptionSpec> options = new ArrayList<>(spec.options());
    if (options.stream().anyMatch(o -> key(o) != null)) {
      // Options are immutable; rebuilding them all keeps their order in the help.
      options.forEach(spec::remove);
      for (OptionSpec option : options) {
        String key = key(option);
        if (key == null) {
          spec.addOption(option);
          continue;
        }
        String[] description = option.description().clone();
        int last = description.length - 1;
        description[last] = description[last] + " (" + key + defaultOf(key, defaults) + ")";
        spec.addOption(OptionSpec.builder(option).description(description).build());
      }
    }
    command.getSubcommands().values().forEach(sub -> describe(sub, defaults));
  }

  /** The bound key of an option, or null. */
  static String key(OptionSpec option) {
    return option.userObject() instanceof Field field && field.isAnnotationPresent(ConfigKey.class)
        ? field.getAnnotation(ConfigKey.class).value()
        : null;
  }

  /** ", default X" as the YAML gives X; nothing for a null default. */
  private static String defaultOf(String key, ObjectNode defaults) {
    JsonNode node = defaults;
    for (String part : key.split("\\.")) {
      node = node == null ? null : node.get(part);
    }
    if (node == null || node.isNull()) {
      return "";
    }
    String shown =
        node.isArray()
            ? "["
                + java.util.stream.StreamSupport.stream(node.spliterator(), false)
                    .map(JsonNode::asText)
                    .collect(Collectors.joining(", "))
                + "]"
            : node.asText();
    return ", default " + shown;
  }
}
