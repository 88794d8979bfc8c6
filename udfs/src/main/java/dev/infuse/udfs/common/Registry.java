package dev.infuse.udfs.common;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * Named things (readers, backends, templates, metrics) registered by unique name. Registering a
 * name twice fails, and looking up an unknown name fails with the nearest valid name and the full
 * list.
 */
public final class Registry<T> {
  private final String kind;
  private final Map<String, T> entries = new LinkedHashMap<>();

  /**
   * @param kind what the entries are, for error messages: "format", "backend", …
   */
  public Registry(String kind) {
    this.kind = kind;
  }

  public Registry<T> register(String name, T value) {
    if (entries.containsKey(name)) {
      throw new IllegalStateException(kind + " '" + name + "' is registered twice");
    }
    entries.put(name, value);
    return this;
  }

  public T get(String name) {
    T value = entries.get(name);
    if (value == null) {
      throw new IllegalArgumentException(unknownMessage(name));
    }
    return value;
  }

  public boolean contains(String name) {
    return entries.containsKey(name);
  }

  public Set<String> names() {
    return Collections.unmodifiableSet(entries.keySet());
  }

  private String unknownMessage(String name) {
    StringBuilder message =
        new StringBuilder("unknown ").append(kind).append(" '").append(name).append("'");
    Names.nearest(name, entries.keySet())
        .ifPresent(n -> message.append("; did you mean '").append(n).append("'?"));
    return message
        .append(" Valid ")
        .append(kind)
        .append("s: ")
        .append(String.join(", ", entries.keySet()))
        .toString();
  }
}
