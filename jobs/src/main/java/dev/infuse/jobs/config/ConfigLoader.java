package dev.infuse.jobs.config;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.exc.ValueInstantiationException;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.infuse.udfs.common.EnumNames;
import dev.infuse.udfs.common.Names;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.reflect.ParameterizedType;
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
 * overrides, and what a job's flags set.
 *
 * <p>Before binding, the merged tree is checked against the section records themselves, so that
 * every unknown key and every wrongly typed value is reported at once, each with the nearest valid
 * key or name. Then each section binds to its record and checks its own values.
 */
public final class ConfigLoader {
  /** The built-in defaults; every key is documented there. */
  public static final String DEFAULTS_RESOURCE = "dev/infuse/jobs/defaults.yaml";

  private static final String WAREHOUSE = "warehouse";
  private static final SectionType<RunConfig> RUN = SectionType.of("run", RunConfig.class);
  private static final SectionType<SparkConfig> SPARK = SectionType.of("spark", SparkConfig.class);

  /** Reads YAML as it is written, for merging and checking. */
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  /**
   * Binds a checked section to its record. Nulls for primitives were reported by {@link #check}
   * already; unwrapped components arrive nested ({@link RecordShape#nest}), so Jackson binds them
   * as plain properties.
   */
  private static final ObjectMapper BINDER =
      new ObjectMapper(new YAMLFactory())
          .setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
          .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
          .setAnnotationIntrospector(new UnwrappedAsNested());

  /** Turns config records into trees with their YAML keys, for {@link #setObject}. */
  private static final ObjectMapper OBJECTS =
      new ObjectMapper().setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE);

  private final List<SectionType<?>> sections;
  private final ObjectNode tree;
  private ObjectNode defaults;

  private ConfigLoader(List<SectionType<?>> sections, ObjectNode tree) {
    this.sections = List.copyOf(sections);
    this.tree = tree;
  }

  /**
   * What one check of the tree found. A wrong type or an unknown key stops the load before binding;
   * an unknown name of an enum is checked as its default instead, so that it is reported together
   * with the sections' own checks, as any other bad value.
   */
  private static final class Problems {
    final List<String> stopping = new ArrayList<>();
    final List<String> names = new ArrayList<>();
  }

  /** Starts from the built-in defaults, for a config with these job sections. */
  public static ConfigLoader withDefaults(List<SectionType<?>> sections) {
    ConfigLoader loader = new ConfigLoader(sections, JsonNodeFactory.instance.objectNode());
    try (InputStream in =
        ConfigLoader.class.getClassLoader().getResourceAsStream(DEFAULTS_RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException(DEFAULTS_RESOURCE + " is missing from the classpath");
      }
      merge(loader.tree, YAML.readTree(in));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + DEFAULTS_RESOURCE, e);
    }
    loader.defaults = loader.tree.deepCopy();
    return loader;
  }

  /** Layers a YAML file over what is there; maps merge key by key, anything else replaces. */
  public ConfigLoader file(Path path) {
    if (!Files.isRegularFile(path)) {
      throw new ConfigException(
          List.of("--config: got " + path + ", expected an existing YAML file"));
    }
    try {
      JsonNode node = YAML.readTree(path.toFile());
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
      merge(tree, node);
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
      value = text.isEmpty() ? JsonNodeFactory.instance.textNode("") : YAML.readTree(text);
    } catch (JsonProcessingException e) {
      value = JsonNodeFactory.instance.textNode(text);
    }
    if (value == null || value.isMissingNode()) {
      value = JsonNodeFactory.instance.nullNode();
    }
    String[] parts = key.split("\\.");
    ObjectNode node = tree;
    Class<?> type = sectionType(parts[0]);
    for (int i = 0; i < parts.length - 1; i++) {
      Class<?> next = i == 0 ? type : componentType(type, parts[i]);
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
    parentOf(key).put(lastPart(key), value);
    return this;
  }

  /**
   * Sets one key to a list of strings, or of lists (or arrays) of strings, as given: no YAML
   * parsing, so run ids and paths are never read as numbers, booleans or flow syntax.
   */
  public ConfigLoader setStrings(String key, List<?> values) {
    parentOf(key).set(lastPart(key), stringArray(values));
    return this;
  }

  /**
   * Sets one key to a value of a config record (a nested section such as {@code answer.endpoint}),
   * its components as snake_case keys, null ones included; no YAML parsing.
   */
  public ConfigLoader setObject(String key, Object value) {
    parentOf(key).set(lastPart(key), OBJECTS.valueToTree(value));
    return this;
  }

  /** Checks and binds the layered tree. */
  public InfuseConfig load() {
    ObjectNode checked = tree.deepCopy();
    Problems found = new Problems();
    checkTopLevel(checked, found);
    if (!found.stopping.isEmpty()) {
      List<String> all = new ArrayList<>(found.stopping);
      all.addAll(found.names);
      throw new ConfigException(all);
    }
    List<String> problems = new ArrayList<>(found.names);
    RunConfig run = bind(checked, RUN, problems);
    SparkConfig spark = bind(checked, SPARK, problems);
    Map<String, Object> bound = new LinkedHashMap<>();
    for (SectionType<?> section : sections) {
      Object value = bind(checked, section, problems);
      if (value != null) {
        bound.put(section.name(), value);
      }
    }
    if (problems.size() > found.names.size()) {
      throw new ConfigException(problems);
    }
    JsonNode warehouse = checked.get(WAREHOUSE);
    String root = warehouse == null || warehouse.isNull() ? null : warehouse.asText();
    if (root == null || root.isBlank()) {
      problems.add("warehouse: got nothing, expected a directory or URI");
    }
    problems.addAll(RUN.problems(run));
    problems.addAll(SPARK.problems(spark));
    for (SectionType<?> section : sections) {
      problems.addAll(section.problems(bound.get(section.name())));
    }
    if (!problems.isEmpty()) {
      throw new ConfigException(problems);
    }
    return new InfuseConfig(root, run, spark, bound);
  }

  /** The merged tree as it stands, before binding. */
  public ObjectNode tree() {
    return tree.deepCopy();
  }

  private void checkTopLevel(ObjectNode checked, Problems problems) {
    List<String> known = new ArrayList<>(List.of(WAREHOUSE, RUN.name(), SPARK.name()));
    sections.forEach(s -> known.add(s.name()));
    Iterator<Map.Entry<String, JsonNode>> fields = checked.fields();
    while (fields.hasNext()) {
      Map.Entry<String, JsonNode> field = fields.next();
      String key = field.getKey();
      if (key.equals(WAREHOUSE)) {
        if (!field.getValue().isValueNode()) {
          problems.stopping.add(
              "warehouse: got " + describe(field.getValue()) + ", expected a string");
        }
      } else if (!known.contains(key)) {
        problems.stopping.add(unknownKey(key, "", known));
      } else {
        check(field.getValue(), sectionType(key), key, problems);
      }
    }
    for (String name : known.subList(1, known.size())) {
      if (!checked.has(name)) {
        throw new IllegalStateException(
            "config section " + name + " is missing from " + DEFAULTS_RESOURCE);
      }
    }
  }

  private <T extends Record> T bind(
      ObjectNode checked, SectionType<T> section, List<String> problems) {
    JsonNode node = RecordShape.of(section.type()).nest(checked.get(section.name()));
    try {
      return BINDER.treeToValue(node, section.type());
    } catch (ValueInstantiationException e) {
      problems.add(section.name() + ": " + rootMessage(e));
    } catch (JsonProcessingException e) {
      problems.add(section.name() + ": " + e.getOriginalMessage());
    }
    return null;
  }

  private static String rootMessage(Throwable e) {
    Throwable cause = e;
    while (cause.getCause() != null && cause.getCause() != cause) {
      cause = cause.getCause();
    }
    return cause.getMessage();
  }

  private Class<?> sectionType(String name) {
    if (name.equals(RUN.name())) {
      return RunConfig.class;
    }
    if (name.equals(SPARK.name())) {
      return SparkConfig.class;
    }
    for (SectionType<?> section : sections) {
      if (section.name().equals(name)) {
        return section.type();
      }
    }
    return null;
  }

  private void check(JsonNode node, Class<?> type, String path, Problems problems) {
    if (!node.isObject()) {
      problems.stopping.add(path + ": got " + describe(node) + ", expected a mapping");
      return;
    }
    RecordShape shape = RecordShape.of(type);
    Iterator<Map.Entry<String, JsonNode>> fields = node.fields();
    while (fields.hasNext()) {
      Map.Entry<String, JsonNode> field = fields.next();
      String key = path + "." + field.getKey();
      RecordShape.Slot slot = shape.slot(field.getKey());
      if (slot == null) {
        problems.stopping.add(unknownKey(field.getKey(), path, shape.keys()));
        continue;
      }
      if (slot.component().getType().isEnum() && !field.getValue().isNull()) {
        String problem = nameProblem(field.getValue(), slot.component().getType());
        if (problem != null) {
          problems.names.add(key + ": " + problem);
          field.setValue(defaultAt(key));
        }
        continue;
      }
      checkValue(
          field.getValue(),
          slot.component().getType(),
          slot.component().getGenericType(),
          key,
          problems);
    }
  }

  /** The default of {@code key}, or null when defaults.yaml has none. */
  private JsonNode defaultAt(String key) {
    JsonNode node = defaults;
    for (String part : key.split("\\.")) {
      node = node == null ? null : node.get(part);
    }
    return node == null ? JsonNodeFactory.instance.nullNode() : node.deepCopy();
  }

  private static String unknownKey(String name, String path, java.util.Collection<String> valid) {
    String prefix = path.isEmpty() ? "" : path + ".";
    StringBuilder message =
        new StringBuilder("unknown config key '").append(prefix).append(name).append("'");
    Names.nearest(name, valid)
        .ifPresent(n -> message.append("; did you mean '").append(prefix).append(n).append("'?"));
    message
        .append(" Valid keys")
        .append(path.isEmpty() ? "" : " under " + path)
        .append(": ")
        .append(String.join(", ", valid));
    return message.toString();
  }

  private void checkValue(
      JsonNode value, Class<?> type, Type generic, String key, Problems problems) {
    if (value.isNull()) {
      if (type.isPrimitive()) {
        problems.stopping.add(key + ": got null, expected " + expected(type));
      }
      return;
    }
    if (type.isRecord()) {
      check(value, type, key, problems);
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
      if (ok && elementType(generic, 1) == String.class) {
        value
            .fields()
            .forEachRemaining(
                e -> {
                  if (!e.getValue().isValueNode()) {
                    problems.stopping.add(
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
      if (ok) {
        checkElements(value, generic, key, problems);
      }
    } else {
      ok = true;
    }
    if (!ok) {
      problems.stopping.add(key + ": got " + describe(value) + ", expected " + expected(type));
    }
  }

  /**
   * The elements of a list: names of an enum (an unknown one is reported and left out, and so is a
   * pair that holds one), or lists (pairs such as {@code [[a, b]]}).
   *
   * @return whether an unknown name was left out
   */
  private boolean checkElements(JsonNode list, Type generic, String key, Problems problems) {
    Type element = elementType(generic, 0);
    boolean leftOut = false;
    if (element instanceof Class<?> enumType && enumType.isEnum()) {
      for (Iterator<JsonNode> items = list.elements(); items.hasNext(); ) {
        String problem = nameProblem(items.next(), enumType);
        if (problem != null) {
          problems.names.add(key + ": " + problem);
          items.remove();
          leftOut = true;
        }
      }
    } else if (element instanceof ParameterizedType inner
        && inner.getRawType() instanceof Class<?> raw
        && List.class.isAssignableFrom(raw)) {
      // A flat list where pairs are expected ([a, b] for [[a, b]]) would otherwise fail in binding.
      for (JsonNode item : list) {
        if (!item.isArray()) {
          problems.stopping.add(
              key
                  + ": got "
                  + list
                  + " with element "
                  + describe(item)
                  + ", expected a list of lists, e.g. [[a, b]]");
          return false;
        }
      }
      for (Iterator<JsonNode> items = list.elements(); items.hasNext(); ) {
        if (checkElements(items.next(), inner, key, problems)) {
          items.remove();
          leftOut = true;
        }
      }
    }
    return leftOut;
  }

  /** Why {@code value} is not a name of {@code enumType}, or null when it is one. */
  @SuppressWarnings({"unchecked", "rawtypes"})
  private static String nameProblem(JsonNode value, Class<?> enumType) {
    Class<? extends Enum<?>> type = (Class<? extends Enum<?>>) (Class) enumType;
    return value.isTextual()
        ? EnumNames.problem(type, value.asText())
        : "got " + describe(value) + ", expected " + EnumNames.expected(type);
  }

  private static Type elementType(Type generic, int index) {
    return generic instanceof ParameterizedType parameterized
        ? parameterized.getActualTypeArguments()[index]
        : Object.class;
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

  private static Class<?> componentType(Class<?> record, String key) {
    if (record == null || !record.isRecord()) {
      return null;
    }
    RecordShape.Slot slot = RecordShape.of(record).slot(key);
    return slot == null ? null : slot.component().getType();
  }

  private ObjectNode parentOf(String key) {
    String[] parts = key.split("\\.");
    ObjectNode node = tree;
    for (int i = 0; i < parts.length - 1; i++) {
      node = child(node, parts[i]);
    }
    return node;
  }

  private static String lastPart(String key) {
    return key.substring(key.lastIndexOf('.') + 1);
  }

  private static ArrayNode stringArray(List<?> values) {
    ArrayNode array = JsonNodeFactory.instance.arrayNode();
    for (Object value : values) {
      if (value instanceof List<?> inner) {
        array.add(stringArray(inner));
      } else if (value instanceof Object[] inner) {
        array.add(stringArray(List.of(inner)));
      } else {
        array.add(String.valueOf(value));
      }
    }
    return array;
  }

  private static ObjectNode child(ObjectNode parent, String name) {
    JsonNode existing = parent.get(name);
    if (existing instanceof ObjectNode object) {
      return object;
    }
    return parent.putObject(name);
  }

  private static void merge(ObjectNode target, JsonNode overlay) {
    overlay
        .fields()
        .forEachRemaining(
            entry -> {
              JsonNode current = target.get(entry.getKey());
              if (current instanceof ObjectNode currentObject && entry.getValue().isObject()) {
                merge(currentObject, entry.getValue());
              } else {
                target.set(entry.getKey(), entry.getValue().deepCopy());
              }
            });
  }
}
