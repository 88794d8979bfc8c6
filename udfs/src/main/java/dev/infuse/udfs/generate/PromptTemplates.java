package dev.infuse.udfs.generate;

import dev.infuse.udfs.common.Registry;
import dev.infuse.udfs.prompt.PromptTemplate;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Set;

/**
 * The prompt templates a run may use, by id (the latest version) or by id and version. The jobs
 * module loads the YAML files (udfs has no YAML parser) and hands them here; every template is
 * checked on the way in, so a bad file fails the run before any row is generated.
 */
public final class PromptTemplates {
  private final Registry<PromptTemplate> byVersion = new Registry<>("prompt version");
  private final Registry<PromptTemplate> latest = new Registry<>("prompt");

  private PromptTemplates(Collection<PromptTemplate> templates) {
    List<PromptTemplate> sorted = new ArrayList<>(templates);
    sorted.sort(
        Comparator.comparing(PromptTemplate::id)
            .thenComparing(PromptTemplate::version, Comparator.reverseOrder()));
    for (PromptTemplate template : sorted) {
      List<String> problems = template.problems();
      if (!problems.isEmpty()) {
        throw new IllegalArgumentException(
            "prompt "
                + template.id()
                + "@v"
                + template.version()
                + ": "
                + String.join("; ", problems));
      }
      byVersion.register(key(template.id(), template.version()), template);
      if (!latest.contains(template.id())) {
        latest.register(template.id(), template);
      }
    }
  }

  /**
   * @throws IllegalArgumentException for an invalid template; IllegalStateException for a repeated
   *     id and version
   */
  public static PromptTemplates of(Collection<PromptTemplate> templates) {
    return new PromptTemplates(templates);
  }

  /** The highest version of {@code id}; an unknown id fails with the nearest known one. */
  public PromptTemplate get(String id) {
    return latest.get(id);
  }

  /** Exactly {@code id} at {@code version}. */
  public PromptTemplate get(String id, int version) {
    return byVersion.get(key(id, version));
  }

  /** The known ids. */
  public Set<String> ids() {
    return latest.names();
  }

  private static String key(String id, int version) {
    return id + "@v" + version;
  }
}
