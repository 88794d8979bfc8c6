package dev.infuse.udfs.behavior.score;

import dev.infuse.udfs.behavior.BehaviorType;
import dev.infuse.udfs.behavior.sft.BehaviorTokens;
import java.util.Locale;
import java.util.Objects;

/**
 * The behaviour named by the response's leading behavioural token ({@code <reactive>}, {@code
 * <proactive>}, {@code <restraint>} by default). Leading whitespace is skipped and the match
 * ignores case; a token anywhere but first does not count, since behaviour mode asks for it first.
 */
public final class BehaviorTokenClassifier implements BehaviorClassifier {
  public static final String ID = "token";
  public static final int VERSION = 1;

  private final BehaviorTokens tokens;

  public BehaviorTokenClassifier() {
    this(BehaviorTokens.defaults());
  }

  public BehaviorTokenClassifier(BehaviorTokens tokens) {
    this.tokens = Objects.requireNonNull(tokens, "tokens");
  }

  @Override
  public String id() {
    return ID;
  }

  @Override
  public int version() {
    return VERSION;
  }

  @Override
  public Classification classify(String response) {
    String text = response == null ? "" : response.stripLeading().toLowerCase(Locale.ROOT);
    for (BehaviorType type : BehaviorType.values()) {
      if (text.startsWith(tokens.token(type).toLowerCase(Locale.ROOT))) {
        return new Classification(type, ID);
      }
    }
    return new Classification(null, ID);
  }
}
