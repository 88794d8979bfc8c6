package dev.infuse.jobs.config;

import java.util.List;
import java.util.function.Function;

/**
 * A top-level section of the config: its YAML name, the record it binds to, and how the record
 * checks itself. The CLI's job catalog lists one per section; {@link ConfigLoader} binds them.
 *
 * @param name the YAML key, such as {@code answer} or {@code gen_qa}
 * @param type the record the section binds to
 * @param check the record's problems, with keys relative to the section
 */
public record SectionType<T extends Record>(
    String name, Class<T> type, Function<T, List<String>> check) {

  /** A section whose record checks itself. */
  public static <T extends Record & ConfigSection> SectionType<T> of(String name, Class<T> type) {
    return new SectionType<>(name, type, ConfigSection::problems);
  }

  /**
   * A section bound straight to a record that does not know about config, such as a {@code udfs}
   * settings record, with the function that checks it.
   */
  public static <T extends Record> SectionType<T> of(
      String name, Class<T> type, Function<T, List<String>> check) {
    return new SectionType<>(name, type, check);
  }

  /** The problems of a bound record, each prefixed with the section name. */
  List<String> problems(Object section) {
    return check.apply(type.cast(section)).stream().map(p -> name + "." + p).toList();
  }
}
