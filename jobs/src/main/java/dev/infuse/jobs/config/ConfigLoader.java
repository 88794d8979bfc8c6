package dev.infuse.jobs.config;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.infuse.udfs.common.Names;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Builds an {@link InfuseConfig} from layers: built-in defaults, YAML files, {@code --set}
 * overrides.
 *
 * <p>Before binding, the merged tree is checked against the records themselves, so that every
 * unknown key and every wrongly typed value is reported at once, each with the nearest valid key.
 */
public final class ConfigLoader {
  /** The built-in defaults; every key is documented there. */
  public static final String DEFAULTS_RESOURCE = "dev/infuse/jobs/defaults.yaml";

  private static final PropertyNamingStrategies.NamingBase SNAKE =
      (PropertyNamingStrategies.NamingBase) PropertyNamingStrategies.SNAKE_CASE;

  private final ObjectMapper yaml =
      new ObjectMapper(new YAMLFactory())
          .setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
          .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
          .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES);
  private final ObjectNode tree;

  private ConfigLoader(ObjectNode tree) {
    this.tree = tree;
  }

  /** Starts from the built-in defaults. */
  public static ConfigLoader withDefaults() {
    ConfigLoader loader = new ConfigLoader(JsonNodeFactory.instance.objectNode());
    try (InputStream in =
        ConfigLoader.class.getClassLoader().getResourceAsStream(DEFAULTS_RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException(DEFAULTS_RESOURCE + " is missing from the classpath");
      }
      loader.merge(loader.tree, loader.yaml.readTree(in), "");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + DEFAULTS_RESOURCE, e);
    }
    return loader;
  }

  /** Layers a YAML file over what is there; maps merge key by key, anything else replaces. */
  public ConfigLoader file(Path path) {
    if (!Files.isRegularFile(path)) {
      throw new ConfigException(
          List.of("--config: got " + path + ", expected an existing YAML file"));
    }
    try {
      JsonNode node = yaml.readTree(path.toFile());
      if (node == null || node.isMissingNode() || node.isNull()) {
        return this;
      }
      if (!node.isObject()) {
        throw new ConfigException(
            List.of(
                path
                    + ": got a "
                    + node.getNodeType().name().toLowerCase()
                    + " at the top level, expected a mapping of config keys"));
      }
      merge(tree, node, "");
    } catch (JsonProcessingException e) {
      throw new ConfigException(
          List.of(
              path
                  + ": not valid YAML: "
                  + e.getOriginalMessage()
                  + " at line "
                  + e.getLocation().getLineNr()
                  + ", column "
                  + e.getLocation().getColumnNr()));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + path, e);
    }
    return this;
  }

  /**
   * Applies one {@code key=value} override. The value is read as a YAML scalar or flow collection,
   * so {@code 512}, {@code true}, {@code null} and {@code [a, b]} have their types. Below a
   * free-form map such as {@code spark.conf}, the rest of the key is one map key: {@code
   * spark.conf.spark.sql.shuffle.partitions=8}.
   */
  public ConfigLoader set(String assignment) {
    int eq = assignment.indexOf('=');
    if (eq <= 0) {
      throw new ConfigException(List.of("--set: got '" + assignment + "', expected key=value"));
    }
    String key = assignment.substring(0, eq).trim();
    String text = assignment.substring(eq + 1);
    JsonNode value;
    try {
      value = text.isEmpty() ? JsonNodeFactory.instance.textNode("") : yaml.readTree(text);
    } catch (JsonProcessingException e) {
      value = JsonNodeFactory.instance.textNode(text);
    }
    if (value == null || value.isMissingNode()) {
      value = JsonNodeFactory.instance.nullNode();
    }
    String[] parts = key.split("\\.");
    ObjectNode node = tree;
    Class<?> type = InfuseConfig.class;
    for (int i = 0; i < parts.length - 1; i++) {
      Class<?> next = type == null ? null : componentType(type, parts[i]);
      if (next != null && Map.class.isAssignableFrom(next)) {
        String rest = String.join(".", java.util.Arrays.copyOfRange(parts, i + 1, parts.length));
        child(node, parts[i]).set(rest, value);
        return this;
      }
      node = child(node, parts[i]);
      type = next;
    }
    node.set(parts[parts.length - 1], value);
    return this;
  }

  /** Sets one key to a string, as a job flag such as {@code --input PATH} does: no YAML parsing. */
  public ConfigLoader setString(String key, String value) {
    String[] parts = key.split("\\.");
    ObjectNode node = tree;
    for (int i = 0; i < parts.length - 1; i++) {
      node = child(node, parts[i]);
    }
    node.put(parts[parts.length - 1], value);
    return this;
  }

  /**
   * Sets one key to a list of strings, or of lists of strings, as given: no YAML parsing, so run
   * ids and paths are never read as numbers, booleans or flow syntax.
   */
  public ConfigLoader setStrings(String key, List<?> values) {
    String[] parts = key.split("\\.");
    ObjectNode node = tree;
    for (int i = 0; i < parts.length - 1; i++) {
      node = child(node, parts[i]);
    }
    node.set(parts[parts.length - 1], stringArray(values));
    return this;
  }

  private static ArrayNode stringArray(List<?> values) {
    ArrayNode array = JsonNodeFactory.instance.arrayNode();
    for (Object value : values) {
      if (value instanceof List<?> inner) {
        array.add(stringArray(inner));
      } else {
        array.add(String.valueOf(value));
      }
    }
    return array;
  }

  /** Checks and binds the layered tree. */
  public InfuseConfig load() {
    List<String> problems = new ArrayList<>();
    check(tree, InfuseConfig.class, "", problems);
    if (!problems.isEmpty()) {
      throw new ConfigException(problems);
    }
    InfuseConfig config;
    try {
      config = yaml.treeToValue(tree, InfuseConfig.class);
    } catch (JsonProcessingException e) {
      throw new ConfigException(List.of("config: " + e.getOriginalMessage()));
    }
    problems.addAll(config.problems());
    if (!problems.isEmpty()) {
      throw new ConfigException(problems);
    }
    return config;
  }

  /** The merged tree as it stands, before binding. */
  public ObjectNode tree() {
    return tree.deepCopy();
  }

  private void check(JsonNode node, Class<?> type, String path, List<String> problems) {
    if (!type.isRecord()) {
      return;
    }
    if (!node.isObject()) {
      problems.add(label(path) + ": got " + describe(node) + ", expected a mapping");
      return;
    }
    Map<String, RecordComponent> components = new LinkedHashMap<>();
    for (RecordComponent component : type.getRecordComponents()) {
      components.put(SNAKE.translate(component.getName()), component);
    }
    Iterator<Map.Entry<String, JsonNode>> fields = node.fields();
    while (fields.hasNext()) {
      Map.Entry<String, JsonNode> field = fields.next();
      String key = path.isEmpty() ? field.getKey() : path + "." + field.getKey();
      RecordComponent component = components.get(field.getKey());
      if (component == null) {
        StringBuilder message = new StringBuilder("unknown config key '").append(key).append("'");
        Names.nearest(field.getKey(), components.keySet())
            .ifPresent(
                n ->
                    message
                        .append("; did you mean '")
                        .append(path.isEmpty() ? n : path + "." + n)
                        .append("'?"));
        message
            .append(" Valid keys")
            .append(path.isEmpty() ? "" : " under " + path)
            .append(": ")
            .append(String.join(", ", components.keySet()));
        problems.add(message.toString());
        continue;
      }
      checkValue(field.getValue(), component.getType(), component.getGenericType(), key, problems);
    }
  }

  private void checkValue(
      JsonNode value, Class<?> type, Type generic, String key, List<String> problems) {
    if (value.isNull()) {
      if (type.isPrimitive()) {
        problems.add(key + ": got null, expected " + expected(type));
      }
      return;
    }
    boolean ok;
    if (type == int.class || type == Integer.class || type == long.class || type == Long.class) {
      ok = value.isIntegralNumber();
    } else if (type == double.class || type == Double.class) {
      ok = value.isNumber();
    } else if (type == boolean.class || type == Boolean.class) {
      ok = value.isBoolean();
    } else if (type == String.class) {
      ok = value.isValueNode();
    } else if (Map.class.isAssignableFrom(type)) {
      ok = value.isObject();
      if (ok
          && generic instanceof ParameterizedType parameterized
          && parameterized.getActualTypeArguments()[1] == String.class) {
        value
            .fields()
            .forEachRemaining(
                e -> {
                  if (!e.getValue().isValueNode()) {
                    problems.add(
                        key
                            + "."
                            + e.getKey()
                            + ": got "
                            + describe(e.getValue())
                            + ", expected a scalar value");
                  }
                });
      }
    } else if (List.class.isAssignableFrom(type)) {
      ok = value.isArray();
      if (ok && isListOfLists(generic)) {
        // A flat list where pairs are expected ([a, b] for [[a, b]]) would otherwise fail deep in
        // binding.
        for (JsonNode element : value) {
          if (!element.isArray()) {
            problems.add(
                key
                    + ": got "
                    + value
                    + " with element "
                    + describe(element)
                    + ", expected a list of lists, e.g. [[a, b]]");
            break;
          }
        }
      }
    } else if (type.isRecord()) {
      check(value, type, key, problems);
      return;
    } else {
      ok = true;
    }
    if (!ok) {
      problems.add(key + ": got " + describe(value) + ", expected " + expected(type));
    }
  }

  private static boolean isListOfLists(Type generic) {
    return generic instanceof ParameterizedType parameterized
        && parameterized.getActualTypeArguments()[0] instanceof ParameterizedType element
        && element.getRawType() instanceof Class<?> raw
        && List.class.isAssignableFrom(raw);
  }

  private static String expected(Class<?> type) {
    if (type == int.class || type == Integer.class || type == long.class || type == Long.class) {
      return "an integer";
    }
    if (type == double.class || type == Double.class) {
      return "a number";
    }
    if (type == boolean.class || type == Boolean.class) {
      return "true or false";
    }
    if (Map.class.isAssignableFrom(type)) {
      return "a mapping";
    }
    if (List.class.isAssignableFrom(type)) {
      return "a list";
    }
    return "a string";
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

  private static String label(String path) {
    return path.isEmpty() ? "config" : path;
  }

  private static Class<?> componentType(Class<?> record, String snakeName) {
    if (!record.isRecord()) {
      return null;
    }
    for (RecordComponent component : record.getRecordComponents()) {
      if (SNAKE.translate(component.getName()).equals(snakeName)) {
        return component.getType();
      }
    }
    return null;
  }

  private static ObjectNode child(ObjectNode parent, String name) {
    JsonNode existing = parent.get(name);
    if (existing instanceof ObjectNode object) {
      return object;
    }
    return parent.putObject(name);
  }

  private static void merge(ObjectNode target, JsonNode overlay, String path) {
    overlay
        .fields()
        .forEachRemaining(
            entry -> {
              JsonNode current = target.get(entry.getKey());
              if (current instanceof ObjectNode currentObject && entry.getValue().isObject()) {
                merge(currentObject, entry.getValue(), path + "." + entry.getKey());
              } else {
                target.set(entry.getKey(), entry.getValue().deepCopy());
              }
            });
  }
}
