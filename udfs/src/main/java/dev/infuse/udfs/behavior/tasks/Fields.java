package dev.infuse.udfs.behavior.tasks;

import dev.infuse.udfs.ingest.BadRecordException;
import java.util.Map;

/** Reads a source row's meta fields, rejecting the row with field, value got and value expected. */
final class Fields {
  private Fields() {}

  static String required(Map<String, String> meta, String key, String expected) {
    String value = meta == null ? null : meta.get(key);
    if (value == null || value.isBlank()) {
      throw new BadRecordException(
          "meta."
              + key
              + ": got "
              + (value == null ? "nothing" : "an empty value")
              + ", expected "
              + expected);
    }
    return value;
  }

  static int nonNegativeInt(Map<String, String> meta, String key) {
    String value = required(meta, key, "a sentence number");
    try {
      int parsed = Integer.parseInt(value.trim());
      if (parsed >= 0) {
        return parsed;
      }
    } catch (NumberFormatException e) {
      // reported below with the value got
    }
    throw new BadRecordException("meta." + key + ": got '" + value + "', expected a number >= 0");
  }

  static void nonBlank(String field, String value) {
    if (value == null || value.isBlank()) {
      throw new BadRecordException(
          field + ": got " + (value == null ? "nothing" : "an empty value") + ", expected text");
    }
  }
}
