package dev.infuse.udfs.ingest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;

/**
 * Typed access to a JSON object's fields, failing with a reason that names the field by its path
 * ({@code questions[2].gold_label}) and says what was expected. Keeps every reader's error messages
 * uniform without repeating the checks.
 */
final class JsonFields {
  private final ObjectNode node;
  private final String prefix;

  private JsonFields(ObjectNode node, String prefix) {
    this.node = node;
    this.prefix = prefix;
  }

  /** The fields of a top-level record. */
  static JsonFields of(ObjectNode node) {
    return new JsonFields(node, "");
  }

  /** The fields of a nested value at {@code path}, which must be an object. */
  static JsonFields at(JsonNode value, String path) {
    if (value == null || !value.isObject()) {
      throw new BadRecordException(path + ": got " + Json.describe(value) + ", expected an object");
    }
    return new JsonFields((ObjectNode) value, path + ".");
  }

  ObjectNode node() {
    return node;
  }

  /** The field's path for messages. */
  String path(String field) {
    return prefix + field;
  }

  /** The raw value; null when absent or JSON null. */
  JsonNode value(String field) {
    JsonNode value = node.get(field);
    return value == null || value.isNull() ? null : value;
  }

  boolean has(String field) {
    return value(field) != null;
  }

  /** {@code value}, or a "missing field" rejection when the optional reader found nothing. */
  private <T> T present(String field, T value) {
    if (value == null) {
      throw missing(field);
    }
    return value;
  }

  BadRecordException missing(String field) {
    return new BadRecordException("missing field '" + path(field) + "'");
  }

  BadRecordException wrong(String field, JsonNode got, String expected) {
    return new BadRecordException(
        path(field) + ": got " + Json.describe(got) + ", expected " + expected);
  }

  String requiredString(String field) {
    return present(field, optionalString(field));
  }

  /** A string that must hold some non-whitespace text. */
  String requiredText(String field) {
    String value = requiredString(field);
    if (value.isBlank()) {
      throw wrong(field, node.get(field), "non-empty text");
    }
    return value;
  }

  String optionalString(String field) {
    JsonNode value = value(field);
    if (value == null) {
      return null;
    }
    if (!value.isTextual()) {
      throw wrong(field, value, "a string");
    }
    return value.textValue();
  }

  /** A string or a number, as text: for fields like {@code year} that copies write either way. */
  String optionalScalar(String field) {
    JsonNode value = value(field);
    if (value == null) {
      return null;
    }
    if (!value.isTextual() && !value.isNumber() && !value.isBoolean()) {
      throw wrong(field, value, "a string or a number");
    }
    return value.asText();
  }

  /** An id written as a string or an integer (converted copies disagree); never blank. */
  String requiredId(String field) {
    return present(field, optionalId(field));
  }

  String optionalId(String field) {
    JsonNode value = value(field);
    if (value == null) {
      return null;
    }
    if (value.isTextual() && !value.textValue().isBlank()) {
      return value.textValue().trim();
    }
    if (value.isIntegralNumber()) {
      return value.asText();
    }
    throw wrong(field, value, "a non-empty string or an integer id");
  }

  int requiredInt(String field) {
    return present(field, optionalInt(field));
  }

  Integer optionalInt(String field) {
    JsonNode value = value(field);
    if (value == null) {
      return null;
    }
    if (!value.isIntegralNumber() || !value.canConvertToInt()) {
      throw wrong(field, value, "an integer");
    }
    return value.intValue();
  }

  ArrayNode requiredArray(String field) {
    return present(field, optionalArray(field));
  }

  ArrayNode optionalArray(String field) {
    JsonNode value = value(field);
    if (value == null) {
      return null;
    }
    if (!value.isArray()) {
      throw wrong(field, value, "an array");
    }
    return (ArrayNode) value;
  }

  JsonFields requiredObject(String field) {
    JsonNode value = value(field);
    if (value == null) {
      throw missing(field);
    }
    return at(value, path(field));
  }

  /** A non-empty array of strings, as an immutable list. */
  List<String> requiredStringList(String field) {
    ArrayNode array = requiredArray(field);
    if (array.isEmpty()) {
      throw wrong(field, array, "a non-empty array of strings");
    }
    List<String> values = new ArrayList<>(array.size());
    for (int i = 0; i < array.size(); i++) {
      JsonNode item = array.get(i);
      if (!item.isTextual()) {
        throw new BadRecordException(
            path(field) + "[" + i + "]: got " + Json.describe(item) + ", expected a string");
      }
      values.add(item.textValue());
    }
    return List.copyOf(values);
  }
}
