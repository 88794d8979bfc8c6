package dev.infuse.udfs.behavior.sft;

import dev.infuse.udfs.behavior.BehaviorType;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The behavioural token each behaviour type starts a reply with. The defaults are {@code
 * <reactive>}, {@code <proactive>}, {@code <restraint>}; a run may configure others (e.g. a
 * tokenizer's reserved tokens), keyed by the type's id.
 */
public final class BehaviorTokens {
  /** The defaults, by type id. */
  public static final Map<String, String> DEFAULTS =
      Map.of("reactive", "<reactive>", "proactive", "<proactive>", "restraint", "<restraint>");

  private final Map<BehaviorType, String> tokens;

  private BehaviorTokens(Map<BehaviorType, String> tokens) {
    this.tokens = tokens;
  }

  /** {@code <reactive>}, {@code <proactive>}, {@code <restraint>}. */
  public static BehaviorTokens defaults() {
    return of(DEFAULTS);
  }

  /**
   * Tokens keyed by type id ({@code reactive}, {@code proactive}, {@code restraint}), all three
   * required.
   *
   * @throws IllegalArgumentException naming the key and value: an unknown key, a missing type, a
   *     blank token, one with whitespace, or two types sharing a token
   */
  public static BehaviorTokens of(Map<String, String> byId) {
    if (byId == null) {
      throw new IllegalArgumentException(
          "tokens: got null, expected reactive, proactive, restraint");
    }
    Map<BehaviorType, String> tokens = new EnumMap<>(BehaviorType.class);
    Set<String> seen = new HashSet<>();
    for (Map.Entry<String, String> entry : byId.entrySet()) {
      BehaviorType type;
      try {
        type = BehaviorType.fromName(entry.getKey());
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("tokens." + entry.getKey() + ": " + e.getMessage(), e);
      }
      String token = entry.getValue();
      if (token == null || token.isBlank() || !token.strip().equals(token) || token.contains(" ")) {
        throw new IllegalArgumentException(
            "tokens."
                + entry.getKey()
                + ": got '"
                + token
                + "', expected a non-blank token without whitespace");
      }
      if (!seen.add(token.toLowerCase(Locale.ROOT))) {
        throw new IllegalArgumentException(
            "tokens."
                + entry.getKey()
                + ": got '"
                + token
                + "', already the token of another type");
      }
      tokens.put(type, token);
    }
    for (BehaviorType type : BehaviorType.values()) {
      if (!tokens.containsKey(type)) {
        throw new IllegalArgumentException(
            "tokens." + type.id() + ": missing, expected a token for every behaviour type");
      }
    }
    return new BehaviorTokens(tokens);
  }

  /** The token of {@code type}. */
  public String token(BehaviorType type) {
    return tokens.get(type);
  }
}
