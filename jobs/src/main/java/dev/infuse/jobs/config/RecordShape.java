package dev.infuse.jobs.config;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonUnwrapped;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The YAML keys of a config record. A component marked {@link JsonUnwrapped} nests another record
 * (often a {@code udfs} settings record) whose keys sit at this level of the YAML, as its own:
 * {@code llm.max_concurrency} belongs to {@code LlmSettings} inside {@code LlmConfig}. Keys the
 * component lists in {@link JsonIgnoreProperties} are not configurable there.
 *
 * <p>Jackson 2.15 serialises such a component flat, but cannot bind one through a record's
 * constructor; {@link #nest} therefore moves its keys into an object of their own before binding.
 */
final class RecordShape {
  private static final PropertyNamingStrategies.NamingBase SNAKE =
      (PropertyNamingStrategies.NamingBase) PropertyNamingStrategies.SNAKE_CASE;
  private static final Map<Class<?>, RecordShape> SHAPES =
      new java.util.concurrent.ConcurrentHashMap<>();

  /**
   * One YAML key: the component it binds to, and the unwrapped components it lies inside, outermost
   * first.
   */
  record Slot(RecordComponent component, List<String> via) {}

  private final Map<String, Slot> slots;

  private RecordShape(Map<String, Slot> slots) {
    this.slots = Collections.unmodifiableMap(slots);
  }

  static RecordShape of(Class<?> record) {
    return SHAPES.computeIfAbsent(record, RecordShape::build);
  }

  private static RecordShape build(Class<?> record) {
    Map<String, Slot> slots = new LinkedHashMap<>();
    collect(record, List.of(), Set.of(), slots);
    return new RecordShape(slots);
  }

  private static void collect(
      Class<?> record, List<String> via, Set<String> ignored, Map<String, Slot> slots) {
    for (RecordComponent component : record.getRecordComponents()) {
      String key = SNAKE.translate(component.getName());
      if (ignored.contains(key)) {
        continue;
      }
      if (component.getAccessor().isAnnotationPresent(JsonUnwrapped.class)) {
        List<String> inner = new ArrayList<>(via);
        inner.add(key);
        JsonIgnoreProperties ignore =
            component.getAccessor().getAnnotation(JsonIgnoreProperties.class);
        collect(
            component.getType(),
            List.copyOf(inner),
            ignore == null ? Set.of() : Set.copyOf(Arrays.asList(ignore.value())),
            slots);
      } else if (slots.put(key, new Slot(component, via)) != null) {
        throw new IllegalStateException(record.getName() + " has the YAML key " + key + " twice");
      }
    }
  }

  /** The keys, in declaration order (an unwrapped record's keys where it is declared). */
  Set<String> keys() {
    return slots.keySet();
  }

  /** The slot of a key, or null for an unknown key. */
  Slot slot(String key) {
    return slots.get(key);
  }

  /**
   * The YAML mapping {@code node} of this record reshaped for binding: the keys of each unwrapped
   * component moved into an object under the component's name, recursively into nested records.
   */
  ObjectNode nest(JsonNode node) {
    ObjectNode nested = JsonNodeFactory.instance.objectNode();
    node.fields()
        .forEachRemaining(
            field -> {
              Slot slot = slots.get(field.getKey());
              JsonNode value = field.getValue();
              if (slot != null && slot.component().getType().isRecord() && value.isObject()) {
                value = of(slot.component().getType()).nest(value);
              }
              ObjectNode target = nested;
              for (String name : slot == null ? List.<String>of() : slot.via()) {
                target = target.has(name) ? (ObjectNode) target.get(name) : target.putObject(name);
              }
              target.set(field.getKey(), value);
            });
    return nested;
  }
}
