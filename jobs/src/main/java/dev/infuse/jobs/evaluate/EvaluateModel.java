package dev.infuse.jobs.evaluate;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.infuse.jobs.answer.EndpointModel;
import dev.infuse.udfs.common.Names;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One entry of {@code evaluate.models}: a model directory written by {@code train} (a string, as
 * before), or a model served by an OpenAI-compatible endpoint (a mapping with {@link
 * EndpointModel}'s keys). An entry that is neither binds anyway and carries its problems, so that
 * {@link EvaluateConfig#problems()} reports every bad entry at once, each by its index and key.
 */
public final class EvaluateModel {
  private static final ObjectMapper BINDER =
      new ObjectMapper().setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE);

  private final String dir;
  private final EndpointModel endpoint;
  private final List<String> problems;

  private EvaluateModel(String dir, EndpointModel endpoint, List<String> problems) {
    this.dir = dir;
    this.endpoint = endpoint;
    this.problems = List.copyOf(problems);
  }

  /** A model directory. */
  public static EvaluateModel directory(String dir) {
    return new EvaluateModel(dir, null, List.of());
  }

  /** A model behind an endpoint. */
  public static EvaluateModel endpoint(EndpointModel endpoint) {
    return new EvaluateModel(null, Objects.requireNonNull(endpoint, "endpoint"), List.of());
  }

  /** Binds an entry as written in YAML: a string, or a mapping of endpoint keys. */
  @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
  public static EvaluateModel of(JsonNode node) {
    if (node == null || node.isNull()) {
      return new EvaluateModel(
          null, null, List.of(": got nothing, expected a model directory or an endpoint mapping"));
    }
    if (node.isTextual()) {
      return directory(node.asText());
    }
    if (!node.isObject()) {
      return new EvaluateModel(
          null,
          null,
          List.of(
              ": got "
                  + node
                  + ", expected a model directory written by train (a string) or an endpoint"
                  + " mapping {"
                  + String.join(", ", EndpointModel.KEYS)
                  + "}"));
    }
    List<String> problems = new ArrayList<>();
    ObjectNode checked = ((ObjectNode) node).deepCopy();
    for (Iterator<Map.Entry<String, JsonNode>> fields = checked.fields(); fields.hasNext(); ) {
      Map.Entry<String, JsonNode> field = fields.next();
      String key = field.getKey();
      JsonNode value = field.getValue();
      String problem = null;
      if (!EndpointModel.KEYS.contains(key)) {
        StringBuilder message = new StringBuilder(": unknown key '").append(key).append("'");
        Names.nearest(key, EndpointModel.KEYS)
            .ifPresent(n -> message.append("; did you mean '").append(n).append("'?"));
        problem =
            message
                .append(" Valid keys of an endpoint model: ")
                .append(String.join(", ", EndpointModel.KEYS))
                .toString();
      } else if (value.isNull()) {
        continue;
      } else if (key.equals("synthetic_tokens") || key.equals("max_length")) {
        if (!value.isIntegralNumber() || !value.canConvertToInt() && key.equals("max_length")) {
          problem = "." + key + ": got " + describe(value) + ", expected an integer";
        }
      } else if (key.equals("tokenized_requests")) {
        if (!value.isBoolean()) {
          problem = "." + key + ": got " + describe(value) + ", expected true or false";
        }
      } else if (!value.isValueNode()) {
        problem = "." + key + ": got " + describe(value) + ", expected a string";
      } else if (key.equals("api_key_env") || !value.isTextual()) {
        // Scalars read as text (a model named 7b); api_key_env is never echoed back.
        field.setValue(BINDER.getNodeFactory().textNode(value.asText()));
      }
      if (problem != null) {
        problems.add(problem);
        fields.remove();
      }
    }
    EndpointModel endpoint;
    try {
      endpoint = BINDER.treeToValue(checked, EndpointModel.class);
    } catch (JsonProcessingException e) {
      problems.add(": " + e.getOriginalMessage());
      return new EvaluateModel(null, null, problems);
    }
    endpoint.problems().forEach(p -> problems.add("." + p));
    return new EvaluateModel(null, endpoint, problems);
  }

  /** As the config dump shows it: the directory string, or the endpoint's keys. */
  @JsonValue
  public Object value() {
    if (dir != null) {
      return dir;
    }
    if (endpoint == null) {
      return null;
    }
    Map<String, Object> keys = new LinkedHashMap<>();
    keys.putAll(BINDER.convertValue(endpoint, Map.class));
    return keys;
  }

  /** The model directory, or null for an endpoint. */
  public String dir() {
    return dir;
  }

  /** The endpoint, or null for a model directory. */
  public EndpointModel endpoint() {
    return endpoint;
  }

  /** What is wrong with the entry, each starting with the key below the entry (or ":"). */
  List<String> problems() {
    return problems;
  }

  /** The entry's name among the models: the directory, or the endpoint's name. */
  public String label() {
    return dir != null ? dir : endpoint == null ? "?" : endpoint.label();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof EvaluateModel other
        && Objects.equals(dir, other.dir)
        && Objects.equals(endpoint, other.endpoint)
        && problems.equals(other.problems);
  }

  @Override
  public int hashCode() {
    return Objects.hash(dir, endpoint, problems);
  }

  @Override
  public String toString() {
    return dir != null ? dir : String.valueOf(endpoint);
  }

  private static String describe(JsonNode node) {
    if (node.isObject()) {
      return "a mapping";
    }
    if (node.isArray()) {
      return "a list";
    }
    return "'" + node.asText() + "'";
  }
}
