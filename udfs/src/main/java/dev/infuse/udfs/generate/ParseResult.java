package dev.infuse.udfs.generate;

import java.util.List;

/**
 * What a parser made of one model output. Partial success is normal: the valid items are kept and
 * each invalid one is reported, so one bad pair does not waste the other nine.
 *
 * @param values the valid items, in output order; empty on failure
 * @param problems one line per rejected item or per reason the whole output failed, e.g. "item 2:
 *     missing answer"
 */
public record ParseResult<T>(List<T> values, List<String> problems) {
  public ParseResult {
    values = List.copyOf(values);
    problems = List.copyOf(problems);
  }

  static <T> ParseResult<T> failure(String reason) {
    return new ParseResult<>(List.of(), List.of(reason));
  }

  /** Whether at least one valid item came out. */
  public boolean ok() {
    return !values.isEmpty();
  }

  /** Why nothing (or not everything) came out; empty when all was well. */
  public String reason() {
    if (problems.isEmpty() && values.isEmpty()) {
      return "no items";
    }
    return String.join("; ", problems);
  }
}
