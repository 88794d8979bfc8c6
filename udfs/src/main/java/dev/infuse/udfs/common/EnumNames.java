package dev.infuse.udfs.common;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The names by which enum constants are written in config and tables: the constant's name in lower
 * case ({@code TRAINED_RAG} is {@code trained_rag}). Unknown names get the list of valid ones and
 * the nearest, as a typo suggestion.
 */
public final class EnumNames {
  private EnumNames() {}

  /** The constant's name in config: {@code closed_book} for {@code CLOSED_BOOK}. */
  public static String id(Enum<?> constant) {
    return constant.name().toLowerCase(Locale.ROOT);
  }

  /** Every valid name, in declaration order. */
  public static List<String> ids(Class<? extends Enum<?>> type) {
    return Arrays.stream(type.getEnumConstants()).map(EnumNames::id).toList();
  }

  /** The constant named {@code name}, if there is one. */
  public static <E extends Enum<E>> Optional<E> find(Class<E> type, String name) {
    for (E constant : type.getEnumConstants()) {
      if (id(constant).equals(name)) {
        return Optional.of(constant);
      }
    }
    return Optional.empty();
  }

  /**
   * The constant named {@code name}.
   *
   * @throws IllegalArgumentException naming the valid names and the nearest one
   */
  public static <E extends Enum<E>> E parse(Class<E> type, String name) {
    return find(type, name).orElseThrow(() -> new IllegalArgumentException(problem(type, name)));
  }

  /**
   * Why {@code name} is not a constant of {@code type} ("got trained_rg, expected closed_book, rag,
   * trained or trained_rag; did you mean trained_rag?"), or null when it is one.
   */
  public static String problem(Class<? extends Enum<?>> type, String name) {
    List<String> ids = ids(type);
    if (ids.contains(name)) {
      return null;
    }
    StringBuilder message =
        new StringBuilder("got ").append(name).append(", expected ").append(expected(type));
    Names.nearest(name, ids)
        .ifPresent(n -> message.append("; did you mean ").append(n).append('?'));
    return message.toString();
  }

  /** The valid names as a reader lists them: "a, b or c". */
  public static String expected(Class<? extends Enum<?>> type) {
    return Names.either(ids(type));
  }
}
