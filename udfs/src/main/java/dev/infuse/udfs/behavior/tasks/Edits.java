package dev.infuse.udfs.behavior.tasks;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The recorded form of the three case edits, so that every perturbation records its change the same
 * way and a reader (or a test) can replay it.
 */
final class Edits {
  private Edits() {}

  static Map<String, String> replace(int line, int start, int end, String from, String to) {
    Map<String, String> change = new LinkedHashMap<>();
    change.put("op", Perturbed.REPLACE);
    change.put("line", String.valueOf(line));
    change.put("start", String.valueOf(start));
    change.put("end", String.valueOf(end));
    change.put("from", from);
    change.put("to", to);
    return change;
  }

  static Map<String, String> removeLine(int line, String text) {
    Map<String, String> change = new LinkedHashMap<>();
    change.put("op", Perturbed.REMOVE_LINE);
    change.put("line", String.valueOf(line));
    change.put("text", text);
    return change;
  }

  static Map<String, String> insertLine(int line, String text) {
    Map<String, String> change = new LinkedHashMap<>();
    change.put("op", Perturbed.INSERT_LINE);
    change.put("line", String.valueOf(line));
    change.put("text", text);
    return change;
  }
}
