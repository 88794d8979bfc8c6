package dev.infuse.udfs.llm;

import com.fasterxml.jackson.core.io.JsonStringEncoder;
import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;

/**
 * Writes a JSON tree in one canonical form, so that equal content always hashes to the same key:
 * object keys sorted, no whitespace, numbers in their shortest plain decimal form (0.70 and 0.7,
 * 1.0 and 1 are the same number and are written alike).
 */
final class CanonicalJson {
  private CanonicalJson() {}

  static String write(JsonNode node) {
    StringBuilder out = new StringBuilder();
    write(node, out);
    return out.toString();
  }

  private static void write(JsonNode node, StringBuilder out) {
    if (node == null || node.isNull() || node.isMissingNode()) {
      out.append("null");
    } else if (node.isObject()) {
      List<String> names = new ArrayList<>();
      node.fieldNames().forEachRemaining(names::add);
      Collections.sort(names);
      out.append('{');
      for (int i = 0; i < names.size(); i++) {
        if (i > 0) {
          out.append(',');
        }
        quote(names.get(i), out);
        out.append(':');
        write(node.get(names.get(i)), out);
      }
      out.append('}');
    } else if (node.isArray()) {
      out.append('[');
      Iterator<JsonNode> elements = node.elements();
      for (int i = 0; elements.hasNext(); i++) {
        if (i > 0) {
          out.append(',');
        }
        write(elements.next(), out);
      }
      out.append(']');
    } else if (node.isNumber()) {
      out.append(number(node));
    } else if (node.isBoolean()) {
      out.append(node.booleanValue());
    } else if (node.isTextual()) {
      quote(node.textValue(), out);
    } else {
      throw new IllegalArgumentException(
          "cannot write a " + node.getNodeType() + " node as canonical JSON");
    }
  }

  private static String number(JsonNode node) {
    if (node.isIntegralNumber()) {
      return node.bigIntegerValue().toString();
    }
    if ((node.isDouble() || node.isFloat()) && !Double.isFinite(node.doubleValue())) {
      throw new IllegalArgumentException(
          "JSON has no " + node.doubleValue() + "; numbers must be finite");
    }
    BigDecimal value =
        node.isBigDecimal() ? node.decimalValue() : BigDecimal.valueOf(node.doubleValue());
    return value.signum() == 0 ? "0" : value.stripTrailingZeros().toPlainString();
  }

  private static void quote(String text, StringBuilder out) {
    out.append('"').append(JsonStringEncoder.getInstance().quoteAsString(text)).append('"');
  }
}
