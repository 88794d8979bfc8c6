package dev.infuse.udfs.ingest;

import java.util.List;
import java.util.Map;

/**
 * One CSV data record, read by column name: upstream files order their columns differently, so
 * positions mean nothing.
 */
final class CsvRow {
  private final Map<String, Integer> header;
  private final List<String> values;

  CsvRow(Map<String, Integer> header, List<String> values) {
    this.header = header;
    this.values = values;
  }

  boolean hasColumn(String column) {
    return header.containsKey(column);
  }

  /** The value of a column the format requires. */
  String get(String column) {
    Integer index = header.get(column);
    if (index == null) {
      throw new BadRecordException("missing column '" + column + "'");
    }
    return values.get(index);
  }

  /** A required column that must hold text. */
  String text(String column) {
    String value = get(column);
    if (value.isBlank()) {
      throw new BadRecordException(column + ": got an empty value, expected text");
    }
    return value;
  }

  /** The value, or null when the file has no such column. */
  String optional(String column) {
    Integer index = header.get(column);
    return index == null ? null : values.get(index);
  }

  /** Column names in file order. */
  List<String> columns() {
    return List.copyOf(header.keySet());
  }
}
