package dev.infuse.udfs.behavior.tasks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.infuse.udfs.behavior.BehaviorType;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The behaviour taxonomy ({@code conf/behavior/taxonomy.yaml}): an id, a version and the categories
 * tasks are built for. Categories are data: a new one combines existing sources and perturbation
 * ids, so adding one needs no code. Unknown keys, types, sources and perturbation ids fail with the
 * category, the key, the value got and the values expected.
 */
public final class Taxonomy {
  /** The ingest formats a category may draw from. */
  public static final List<String> SOURCES = List.of("medec", "agentclinic", "aci-bench", "medqa");

  private static final Set<String> TOP_KEYS = Set.of("id", "version", "categories");
  private static final Set<String> CATEGORY_KEYS =
      Set.of("name", "type", "description", "sources", "perturbations", "query");
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  private final String id;
  private final int version;
  private final List<Category> categories;

  private Taxonomy(String id, int version, List<Category> categories) {
    this.id = id;
    this.version = version;
    this.categories = List.copyOf(categories);
  }

  public static Taxonomy load(Path path) {
    try {
      return parse(Files.readString(path, StandardCharsets.UTF_8), path.toString());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read taxonomy " + path, e);
    }
  }

  /**
   * The taxonomy in {@code yaml}; {@code origin} (a path) prefixes every error.
   *
   * @throws IllegalArgumentException naming the category, key, value got and values expected
   */
  public static Taxonomy parse(String yaml, String origin) {
    JsonNode root;
    try {
      root = YAML.readTree(yaml);
    } catch (IOException e) {
      throw new IllegalArgumentException(origin + ": not YAML: " + e.getMessage(), e);
    }
    if (root == null || !root.isObject()) {
      throw new IllegalArgumentException(origin + ": got " + root + ", expected a mapping");
    }
    checkKeys(root, TOP_KEYS, origin);
    String id = requiredText(root, "id", origin);
    JsonNode version = root.get("version");
    if (version == null || !version.canConvertToInt() || version.asInt() < 1) {
      throw new IllegalArgumentException(
          origin + ": version: got " + version + ", expected a positive integer");
    }
    JsonNode list = root.get("categories");
    if (list == null || !list.isArray() || list.isEmpty()) {
      throw new IllegalArgumentException(
          origin + ": categories: got " + list + ", expected a non-empty list");
    }
    List<Category> categories = new ArrayList<>();
    Set<String> names = new LinkedHashSet<>();
    for (int i = 0; i < list.size(); i++) {
      Category category = category(list.get(i), origin + ": categories[" + i + "]");
      if (!names.add(category.name())) {
        throw new IllegalArgumentException(
            origin + ": category " + category.name() + ": name is defined twice");
      }
      categories.add(category);
    }
    return new Taxonomy(id, version.asInt(), categories);
  }

  private static Category category(JsonNode node, String where) {
    if (!node.isObject()) {
      throw new IllegalArgumentException(where + ": got " + node + ", expected a mapping");
    }
    String name = requiredText(node, "name", where);
    String at = where.substring(0, where.indexOf(':')) + ": category " + name;
    checkKeys(node, CATEGORY_KEYS, at);
    String typeName = requiredText(node, "type", at);
    BehaviorType type =
        Arrays.stream(BehaviorType.values())
            .filter(t -> t.id().equals(typeName))
            .findFirst()
            .orElseThrow(
                () ->
                    new IllegalArgumentException(
                        at
                            + ": type: got '"
                            + typeName
                            + "', expected one of "
                            + Arrays.stream(BehaviorType.values()).map(BehaviorType::id).toList()));
    List<String> sources = names(node, "sources", at, SOURCES, false);
    List<String> perturbations =
        names(node, "perturbations", at, List.copyOf(Perturbations.defaults().ids()), true);
    if (type != BehaviorType.PROACTIVE && !perturbations.isEmpty()) {
      throw new IllegalArgumentException(
          at + ": perturbations: got " + perturbations + ", expected none for type " + typeName);
    }
    JsonNode description = node.get("description");
    JsonNode query = node.get("query");
    return new Category(
        name,
        type,
        description == null || description.isNull() ? "" : description.asText(),
        sources,
        perturbations,
        query == null || query.isNull() ? null : query.asText());
  }

  private static List<String> names(
      JsonNode node, String key, String at, List<String> expected, boolean mayBeEmpty) {
    JsonNode list = node.get(key);
    if (list == null || list.isNull()) {
      if (mayBeEmpty) {
        return List.of();
      }
      throw new IllegalArgumentException(
          at + ": " + key + ": got nothing, expected a list of " + expected);
    }
    if (!list.isArray() || (!mayBeEmpty && list.isEmpty())) {
      throw new IllegalArgumentException(
          at + ": " + key + ": got " + list + ", expected a list of " + expected);
    }
    List<String> values = new ArrayList<>();
    for (JsonNode value : list) {
      if (!value.isTextual() || !expected.contains(value.textValue())) {
        throw new IllegalArgumentException(
            at + ": " + key + ": got '" + value.asText() + "', expected one of " + expected);
      }
      values.add(value.textValue());
    }
    return values;
  }

  private static void checkKeys(JsonNode node, Set<String> allowed, String at) {
    for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
      String key = it.next();
      if (!allowed.contains(key)) {
        throw new IllegalArgumentException(
            at
                + ": unknown key '"
                + key
                + "', expected one of "
                + allowed.stream().sorted().toList());
      }
    }
  }

  private static String requiredText(JsonNode node, String key, String at) {
    JsonNode value = node.get(key);
    if (value == null || !value.isValueNode() || value.asText().isBlank()) {
      throw new IllegalArgumentException(at + ": " + key + ": got " + value + ", expected text");
    }
    return value.asText();
  }

  public String id() {
    return id;
  }

  public int version() {
    return version;
  }

  public List<Category> categories() {
    return categories;
  }

  public Optional<Category> category(String name) {
    return categories.stream().filter(c -> c.name().equals(name)).findFirst();
  }
}
