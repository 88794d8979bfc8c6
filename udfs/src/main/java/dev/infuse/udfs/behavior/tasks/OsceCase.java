package dev.infuse.udfs.behavior.tasks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.infuse.udfs.ingest.BadRecordException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Parses an AgentClinic OSCE case ({@code documents.meta.osce_json}) into a {@link ClinicalCase}:
 * every leaf becomes a line {@code Item: value} under its section path, in file order; leaves under
 * the exam and test sections are findings, with a leading number split into value and unit. The
 * diagnosis, the doctor's objective and any management plan are answers, not case, and are left
 * out.
 */
final class OsceCase {
  static final String EXAM = "Physical Examination Findings";
  static final String TEST_RESULTS = "Test Results";

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Set<String> NOT_CASE =
      Set.of("Correct_Diagnosis", "Objective_for_Doctor", "Management_and_Follow_Up");
  private static final Set<String> GENERIC_KEYS =
      Set.of("Findings", "Finding", "Result", "Results", "Value", "Interpretation");

  /** A number (or pair) leading a value, then a short unit: {@code 82 bpm}, {@code 95/60 mmHg}. */
  private static final Pattern MEASURED =
      Pattern.compile(
          "((?:"
              + NumberText.NUMBER.pattern()
              + ")(?:/(?:"
              + NumberText.NUMBER.pattern()
              + "))?)(?:\\s*([^\\s+].{0,24}))?");

  private OsceCase() {}

  /**
   * @throws BadRecordException when {@code json} is not an OSCE case object
   */
  static ClinicalCase parse(String json) {
    JsonNode root;
    try {
      root = json == null ? null : JSON.readTree(json);
    } catch (IOException e) {
      root = null;
    }
    if (root == null || !root.isObject() || root.isEmpty()) {
      throw new BadRecordException(
          "meta.osce_json: got '"
              + abbreviate(json)
              + "', expected the OSCE case as a JSON object");
    }
    List<CaseLine> lines = new ArrayList<>();
    List<Finding> findings = new ArrayList<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = root.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> field = it.next();
      if (!NOT_CASE.contains(field.getKey())) {
        walk(List.of(field.getKey()), field.getValue(), lines, findings);
      }
    }
    if (lines.isEmpty()) {
      throw new BadRecordException("meta.osce_json: got a case with no content, expected sections");
    }
    return new ClinicalCase(lines, findings);
  }

  private static void walk(
      List<String> path, JsonNode node, List<CaseLine> lines, List<Finding> findings) {
    if (node.isObject()) {
      for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> field = it.next();
        List<String> child = new ArrayList<>(path);
        child.add(field.getKey());
        walk(child, field.getValue(), lines, findings);
      }
    } else if (node.isArray()) {
      for (JsonNode item : node) {
        if (item.isValueNode()) {
          lines.add(CaseLine.written(heading(path), "- " + item.asText()));
        } else {
          walk(path, item, lines, findings);
        }
      }
    } else {
      leaf(path, node.isNull() ? "none" : node.asText(), lines, findings);
    }
  }

  private static void leaf(
      List<String> path, String value, List<CaseLine> lines, List<Finding> findings) {
    String key = path.get(path.size() - 1);
    List<String> sectionPath = path.subList(0, Math.max(1, path.size() - 1));
    String section = heading(sectionPath);
    String item =
        human(GENERIC_KEYS.contains(key) && path.size() > 1 ? path.get(path.size() - 2) : key);
    String prefix = human(key) + ": ";
    int line = lines.size();
    lines.add(CaseLine.written(section, prefix + value));
    if (path.size() < 2 || !(section.startsWith(EXAM) || section.startsWith(TEST_RESULTS))) {
      return;
    }
    Matcher measured = MEASURED.matcher(value);
    if (measured.matches()) {
      // "36.8°C (98°F)": the unit is "°C"; a parenthesised restatement stays text, not unit
      String rest = measured.group(2) == null ? "" : measured.group(2);
      int paren = rest.indexOf('(');
      String unit = (paren < 0 ? rest : rest.substring(0, paren)).strip();
      unit = unit.isEmpty() ? null : unit;
      findings.add(new Finding(line, section, item, measured.group(1), unit, prefix.length()));
    } else {
      findings.add(new Finding(line, section, item, value, null, prefix.length()));
    }
  }

  private static String heading(List<String> path) {
    return String.join(" > ", path.stream().map(OsceCase::human).toList());
  }

  private static String human(String key) {
    return key.replace('_', ' ').strip();
  }

  private static String abbreviate(String text) {
    return text == null ? "null" : text.length() <= 80 ? text : text.substring(0, 77) + "...";
  }
}
