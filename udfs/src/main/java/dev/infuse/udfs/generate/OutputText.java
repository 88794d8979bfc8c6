package dev.infuse.udfs.generate;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The cleanup every model output needs before parsing: Markdown code fences, prose before the JSON,
 * and JSON cut off by the token limit (the complete array items before the cut are still usable).
 */
final class OutputText {
  private static final Pattern FENCE =
      Pattern.compile("```[A-Za-z0-9_-]*[ \\t]*\\R?(.*?)(?:```|\\z)", Pattern.DOTALL);
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final JsonFactory FACTORY = MAPPER.getFactory();

  /**
   * A JSON value found in the output: either a whole tree, or the items of a top-level array read
   * one by one up to a syntax error.
   *
   * @param tree the parsed value; for an array cut short, an array of the complete items
   * @param truncation why reading stopped early, or null when the value was complete
   */
  record Json(JsonNode tree, String truncation) {}

  private OutputText() {}

  /**
   * The inside of the first code fence, if the output has one (an unclosed fence runs to the end);
   * else the text.
   */
  static String unfence(String raw) {
    Matcher matcher = FENCE.matcher(raw);
    if (matcher.find()) {
      return matcher.group(1);
    }
    return raw;
  }

  /**
   * The first JSON array or object in {@code raw} (fences and leading prose skipped); null when
   * there is none. An array whose text breaks off keeps the items read before the break.
   */
  static Json firstJson(String raw) {
    String text = unfence(raw).strip();
    int array = text.indexOf('[');
    int object = text.indexOf('{');
    List<Integer> starts = new ArrayList<>();
    if (array >= 0) {
      starts.add(array);
    }
    if (object >= 0) {
      starts.add(object);
    }
    starts.sort(null);
    for (int start : starts) {
      Json json = read(text.substring(start));
      if (json != null) {
        return json;
      }
    }
    return null;
  }

  private static Json read(String text) {
    try {
      return new Json(MAPPER.readTree(text), null);
    } catch (JsonProcessingException e) {
      if (!text.startsWith("[")) {
        return null;
      }
    }
    try (JsonParser parser = FACTORY.createParser(text)) {
      parser.nextToken();
      List<JsonNode> items = new ArrayList<>();
      try {
        while (parser.nextToken() != JsonToken.END_ARRAY) {
          items.add(MAPPER.readTree(parser));
        }
        return new Json(MAPPER.valueToTree(items), null);
      } catch (JsonProcessingException e) {
        if (items.isEmpty()) {
          return null;
        }
        return new Json(
            MAPPER.valueToTree(items),
            "output breaks off after item "
                + items.size()
                + " (truncated or invalid JSON: "
                + e.getOriginalMessage()
                + ")");
      }
    } catch (IOException e) {
      return null;
    }
  }
}
