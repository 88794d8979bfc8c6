package dev.infuse.udfs.generate;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Reads the {@code qa} output: a JSON array of {"question", "answer"} objects. Models wrap it in
 * code fences, put a sentence before it, or (in JSON-object mode) wrap it as {"pairs": [...]} or
 * {"qa": [...]}; all of that is accepted. Never throws: bad items are reported one by one and the
 * good ones kept.
 */
public final class QaPairsParser {
  private static final List<String> WRAPPERS = List.of("pairs", "qa", "qa_pairs", "questions");

  private QaPairsParser() {}

  public static ParseResult<QaPair> parse(String raw) {
    if (raw == null || raw.isBlank()) {
      return ParseResult.failure("empty output");
    }
    OutputText.Json json = OutputText.firstJson(raw);
    if (json == null) {
      return ParseResult.failure("no JSON array of question-answer objects in the output");
    }
    JsonNode tree = json.tree();
    if (tree.isObject()) {
      JsonNode items = wrapped(tree);
      if (items != null) {
        tree = items;
      } else if (tree.has("question") || tree.has("answer")) {
        tree = JsonNodeFactory.instance.arrayNode().add(tree);
      } else {
        return ParseResult.failure(
            "a JSON object without a pairs or qa array (keys: " + keys(tree) + ")");
      }
    }
    List<QaPair> pairs = new ArrayList<>();
    List<String> problems = new ArrayList<>();
    Map<String, Integer> seen = new HashMap<>();
    for (int i = 0; i < tree.size(); i++) {
      String label = "item " + (i + 1) + ": ";
      JsonNode item = tree.get(i);
      if (!item.isObject()) {
        problems.add(
            label + "not an object, got " + item.getNodeType().toString().toLowerCase(Locale.ROOT));
        continue;
      }
      String question = text(item, "question", label, problems);
      String answer = text(item, "answer", label, problems);
      if (question == null || answer == null) {
        continue;
      }
      Integer first = seen.putIfAbsent(question.toLowerCase(Locale.ROOT), i + 1);
      if (first != null) {
        problems.add(label + "repeats the question of item " + first);
        continue;
      }
      pairs.add(new QaPair(question, answer));
    }
    if (tree.isEmpty()) {
      problems.add("an empty array");
    }
    if (json.truncation() != null) {
      problems.add(json.truncation());
    }
    return new ParseResult<>(pairs, problems);
  }

  private static JsonNode wrapped(JsonNode object) {
    for (String name : WRAPPERS) {
      JsonNode value = object.get(name);
      if (value != null && value.isArray()) {
        return value;
      }
    }
    return null;
  }

  private static String text(JsonNode item, String field, String label, List<String> problems) {
    JsonNode value = item.get(field);
    if (value == null || value.isNull()) {
      problems.add(label + "missing " + field);
      return null;
    }
    if (!value.isTextual()) {
      problems.add(
          label
              + field
              + " is not a string, got "
              + value.getNodeType().toString().toLowerCase(Locale.ROOT));
      return null;
    }
    String text = value.asText().strip();
    if (text.isEmpty()) {
      problems.add(label + "blank " + field);
      return null;
    }
    return text;
  }

  static String keys(JsonNode object) {
    List<String> names = new ArrayList<>();
    for (Iterator<String> it = object.fieldNames(); it.hasNext(); ) {
      names.add(it.next());
    }
    return names.isEmpty() ? "none" : String.join(", ", names);
  }
}
