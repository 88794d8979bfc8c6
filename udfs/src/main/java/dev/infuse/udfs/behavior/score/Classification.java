package dev.infuse.udfs.behavior.score;

import dev.infuse.udfs.behavior.BehaviorType;
import java.util.Objects;

/**
 * The behaviour a response was read as, and how.
 *
 * @param behavior the behaviour, or null when the response could not be read (counted as missing)
 * @param method what decided it: a classifier id such as {@code token}, {@code rule}, {@code
 *     judge}, plus {@code id@vN} where a caller records it
 */
public record Classification(BehaviorType behavior, String method) {
  public Classification {
    Objects.requireNonNull(method, "method");
  }

  /** Whether a behaviour was read. */
  public boolean present() {
    return behavior != null;
  }
}
