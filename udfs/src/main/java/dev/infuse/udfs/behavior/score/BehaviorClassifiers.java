package dev.infuse.udfs.behavior.score;

import dev.infuse.udfs.common.Registry;
import java.util.Set;

/**
 * The classifiers by name: {@code token}, {@code rule}, {@code token+rule} (the default) and {@code
 * judge}. An unknown name fails with the nearest known one.
 */
public final class BehaviorClassifiers {
  /** The default: the leading token when there is one, else the rules. */
  public static final String DEFAULT = ChainedBehaviorClassifier.ID;

  private static final Registry<BehaviorClassifier> REGISTRY =
      new Registry<BehaviorClassifier>("behavior classifier")
          .register(BehaviorTokenClassifier.ID, new BehaviorTokenClassifier())
          .register(RuleBehaviorClassifier.ID, new RuleBehaviorClassifier())
          .register(ChainedBehaviorClassifier.ID, new ChainedBehaviorClassifier())
          .register(JudgeBehaviorClassifier.ID, new JudgeBehaviorClassifier());

  private BehaviorClassifiers() {}

  /** The classifier named {@code name}, with the default tokens. */
  public static BehaviorClassifier forName(String name) {
    return REGISTRY.get(name);
  }

  /** The known names. */
  public static Set<String> names() {
    return REGISTRY.names();
  }
}
