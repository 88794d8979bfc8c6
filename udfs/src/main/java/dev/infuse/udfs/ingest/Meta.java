package dev.infuse.udfs.ingest;

import java.util.TreeMap;

/**
 * Builds an item's {@code meta} map: sorted, so equal content compares and serialises equal, and
 * without null values, so an absent field is absent rather than the string "null".
 */
final class Meta {
  private final TreeMap<String, String> entries = new TreeMap<>();

  Meta put(String key, String value) {
    if (value != null) {
      entries.put(key, value);
    }
    return this;
  }

  TreeMap<String, String> build() {
    return new TreeMap<>(entries);
  }
}
