package dev.infuse.udfs.ingest;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.io.JsonEOFException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * The one Jackson setup the readers share. It is strict where leniency would hide damage: a
 * duplicate key or a second value after the first is an error, not a silent overwrite.
 */
final class Json {
  static final JsonMapper MAPPER =
      JsonMapper.builder()
          .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
          .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
          .build();

  private static final int MAX_DESCRIBED_CHARS = 40;

  /** How Jackson starts every end-of-input message, whichever exception type carries it. */
  private static final String END_OF_INPUT = "Unexpected end-of-input";

  private Json() {}

  /** Parses one record that must be a JSON object. */
  static ObjectNode parseObject(String text) {
    JsonNode node;
    try {
      node = MAPPER.readTree(text);
    } catch (JsonProcessingException e) {
      throw new BadRecordException(describe(e));
    }
    if (node == null || node.isMissingNode()) {
      throw new BadRecordException("expected a JSON object, got nothing");
    }
    if (!node.isObject()) {
      throw new BadRecordException("expected a JSON object, got " + describe(node));
    }
    return (ObjectNode) node;
  }

  /** A parse failure as a rejection reason: what broke and where. */
  static String describe(JsonProcessingException e) {
    JsonLocation location = e.getLocation();
    String where =
        location == null
            ? ""
            : " at line " + location.getLineNr() + " column " + location.getColumnNr();
    String message = e.getOriginalMessage();
    if (e instanceof JsonEOFException || message.startsWith(END_OF_INPUT)) {
      return "truncated JSON: " + END_OF_INPUT + where;
    }
    int cut = message.indexOf('\n');
    return "malformed JSON: " + (cut < 0 ? message : message.substring(0, cut)) + where;
  }

  /** A value as a rejection reason quotes it: short strings quoted, containers by kind. */
  static String describe(JsonNode node) {
    if (node == null || node.isMissingNode()) {
      return "nothing";
    }
    if (node.isNull()) {
      return "null";
    }
    if (node.isTextual()) {
      String text = node.textValue();
      return text.isEmpty() ? "an empty string" : "'" + abbreviate(text) + "'";
    }
    if (node.isArray()) {
      return "an array";
    }
    if (node.isObject()) {
      return "an object";
    }
    return node.asText();
  }

  static String abbreviate(String text) {
    return text.length() <= MAX_DESCRIBED_CHARS
        ? text
        : text.substring(0, MAX_DESCRIBED_CHARS) + "…";
  }

  /** Compact JSON, in the node's own key order. */
  static String compact(JsonNode node) {
    try {
      return MAPPER.writeValueAsString(node);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a parsed tree always serialises", e);
    }
  }

  /** Compact JSON with object keys sorted at every level: equal content gives equal text. */
  static String canonical(JsonNode node) {
    return compact(sortedKeys(node));
  }

  private static JsonNode sortedKeys(JsonNode node) {
    if (node.isObject()) {
      List<Map.Entry<String, JsonNode>> fields = new ArrayList<>();
      node.fields().forEachRemaining(fields::add);
      fields.sort(Map.Entry.comparingByKey());
      ObjectNode sorted = MAPPER.createObjectNode();
      fields.forEach(field -> sorted.set(field.getKey(), sortedKeys(field.getValue())));
      return sorted;
    }
    if (node.isArray()) {
      ArrayNode sorted = MAPPER.createArrayNode();
      for (Iterator<JsonNode> it = node.elements(); it.hasNext(); ) {
        sorted.add(sortedKeys(it.next()));
      }
      return sorted;
    }
    return node;
  }
}
