package dev.infuse.udfs.generate;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Reads the {@code entities} output: a JSON array of entity names, trimmed and de-duplicated
 * ignoring case (the first spelling wins). Accepts fences, leading prose, an {"entities": [...]}
 * wrapper and items written as {"name": ...}; never throws, reports bad items one by one.
 */
public final class EntityListParser {
  private static final List<String> WRAPPERS = List.of("entities", "names", "items");
  private static final List<String> NAME_FIELDS = List.of("name", "entity");

  private EntityListParser() {}

  /**
   * The {@code summary} of an {"summary": ..., "entities": [...]} output (EntiGraph's first step),
   * normalized; a failure naming what is missing otherwise.
   */
  public static ParseResult<String> summary(String raw) {
    if (raw == null || raw.isBlank()) {
      return ParseResult.failure("empty output");
    }
    OutputText.Json json = OutputText.firstJson(raw);
    if (json == null || !json.tree().isObject()) {
      return ParseResult.failure("no JSON object with a summary in the output");
    }
    JsonNode summary = json.tree().get("summary");
    if (summary == null || !summary.isTextual() || summary.asText().isBlank()) {
      return ParseResult.failure(
          "expected a non-blank \"summary\" string (keys: "
              + QaPairsParser.keys(json.tree())
              + ")");
    }
    return new ParseResult<>(List.of(summary.asText().strip()), List.of());
  }

  public static ParseResult<String> parse(String raw) {
    if (raw == null || raw.isBlank()) {
      return ParseResult.failure("empty output");
    }
    OutputText.Json json = OutputText.firstJson(raw);
    if (json == null) {
      return ParseResult.failure("no JSON array of entity names in the output");
    }
    JsonNode tree = json.tree();
    if (tree.isObject()) {
      JsonNode items = null;
      for (String wrapper : WRAPPERS) {
        if (tree.has(wrapper) && tree.get(wrapper).isArray()) {
          items = tree.get(wrapper);
          break;
        }
      }
      if (items == null) {
        return ParseResult.failure(
            "a JSON object without an entities array (keys: " + QaPairsParser.keys(tree) + ")");
      }
      tree = items;
    }
    List<String> entities = new ArrayList<>();
    List<String> problems = new ArrayList<>();
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < tree.size(); i++) {
      String label = "item " + (i + 1) + ": ";
      JsonNode item = tree.get(i);
      JsonNode value = item;
      if (item.isObject()) {
        value = null;
        for (String field : NAME_FIELDS) {
          if (item.has(field)) {
            value = item.get(field);
            break;
          }
        }
        if (value == null) {
          problems.add(label + "an object without a name (keys: " + QaPairsParser.keys(item) + ")");
          continue;
        }
      }
      if (!value.isTextual()) {
        problems.add(
            label + "not a string, got " + value.getNodeType().toString().toLowerCase(Locale.ROOT));
        continue;
      }
      String name = Sentences.normalize(value.asText());
      if (name.isEmpty()) {
        problems.add(label + "blank name");
        continue;
      }
      if (seen.add(name.toLowerCase(Locale.ROOT))) {
        entities.add(name);
      }
    }
    if (tree.isEmpty()) {
      problems.add("an empty array");
    }
    if (json.truncation() != null) {
      problems.add(json.truncation());
    }
    return new ParseResult<>(entities, problems);
  }
}
