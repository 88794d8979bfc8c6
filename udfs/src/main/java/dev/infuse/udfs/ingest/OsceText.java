package dev.infuse.udfs.ingest;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Iterator;
import java.util.Map;

/**
 * Renders an OSCE case tree as readable text for retrieval and prompts: keys become headings
 * (underscores to spaces), nested objects are indented, list items are bullet lines, all in the
 * file's key order. The nesting varies from case to case, so the rendering is generic rather than
 * per field.
 */
final class OsceText {
  private static final String INDENT = "  ";

  private OsceText() {}

  static String render(JsonNode root) {
    StringBuilder out = new StringBuilder();
    if (root.isObject()) {
      object(root, 0, out);
    } else {
      value(null, root, 0, out);
    }
    return out.toString().stripTrailing();
  }

  private static void object(JsonNode node, int depth, StringBuilder out) {
    for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> field = it.next();
      value(field.getKey().replace('_', ' '), field.getValue(), depth, out);
    }
  }

  private static void value(String heading, JsonNode node, int depth, StringBuilder out) {
    String indent = INDENT.repeat(depth);
    if (node.isObject() || node.isArray()) {
      if (heading != null) {
        out.append(indent).append(heading).append('\n');
      }
      if (node.isObject()) {
        object(node, heading == null ? depth : depth + 1, out);
      } else {
        list(node, heading == null ? depth : depth + 1, out);
      }
      return;
    }
    String text = node.isNull() ? "none" : node.asText();
    out.append(indent);
    if (heading != null) {
      out.append(heading).append(": ");
    }
    out.append(text).append('\n');
  }

  private static void list(JsonNode array, int depth, StringBuilder out) {
    String indent = INDENT.repeat(depth);
    for (JsonNode item : array) {
      if (item.isObject() || item.isArray()) {
        out.append(indent).append("-\n");
        value(null, item, depth + 1, out);
      } else {
        out.append(indent).append("- ").append(item.isNull() ? "none" : item.asText()).append('\n');
      }
    }
  }
}
