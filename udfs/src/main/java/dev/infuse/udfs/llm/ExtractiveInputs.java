package dev.infuse.udfs.llm;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Reads the task map's variables, failing with a message that names the variable and what was
 * expected.
 */
final class ExtractiveInputs {
  static final ObjectMapper JSON = new ObjectMapper();

  private ExtractiveInputs() {}

  static String text(Map<String, String> task, String name) {
    String value = task.get(name);
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException(name + ": missing, expected non-blank text");
    }
    return value;
  }

  static String optional(Map<String, String> task, String name) {
    String value = task.get(name);
    return value == null ? "" : value;
  }

  static int positive(Map<String, String> task, String name) {
    String value = task.get(name);
    try {
      int n = Integer.parseInt(value == null ? "" : value.strip());
      if (n >= 1) {
        return n;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new IllegalArgumentException(name + ": got " + value + ", expected an integer >= 1");
  }

  /** A JSON array of non-blank strings with between {@code min} and {@code max} items. */
  static List<String> strings(Map<String, String> task, String name, int min, int max) {
    String value = task.get(name);
    String expected =
        ", expected a JSON array of "
            + min
            + (max == Integer.MAX_VALUE ? " or more" : " to " + max)
            + " non-blank strings";
    JsonNode tree;
    try {
      tree = value == null ? null : JSON.readTree(value);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException(
          name + ": not valid JSON (" + e.getOriginalMessage() + ")" + expected);
    }
    if (tree == null || !tree.isArray() || tree.size() < min || tree.size() > max) {
      throw new IllegalArgumentException(name + ": got " + value + expected);
    }
    List<String> items = new ArrayList<>();
    for (JsonNode item : tree) {
      if (!item.isTextual() || item.asText().isBlank()) {
        throw new IllegalArgumentException(
            name + ": item " + item + " is not a non-blank string" + expected);
      }
      items.add(item.asText().strip());
    }
    return items;
  }

  static String toJson(Object value) {
    try {
      return JSON.writeValueAsString(value);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("lists of strings and records always serialize", e);
    }
  }
}
