package dev.infuse.udfs.behavior.score;

import java.util.List;

/**
 * The default reading: the first classifier that reads a behaviour wins (the leading token, then
 * the rules), and the {@link Classification#method()} names the one that did.
 */
public final class ChainedBehaviorClassifier implements BehaviorClassifier {
  public static final String ID = "token+rule";

  private final List<BehaviorClassifier> chain;

  /** Token when present, else rule. */
  public ChainedBehaviorClassifier() {
    this(List.of(new BehaviorTokenClassifier(), new RuleBehaviorClassifier()));
  }

  public ChainedBehaviorClassifier(List<BehaviorClassifier> chain) {
    if (chain == null || chain.isEmpty()) {
      throw new IllegalArgumentException("chain: got no classifiers, expected at least one");
    }
    this.chain = List.copyOf(chain);
  }

  @Override
  public String id() {
    return ID;
  }

  /** 1 while every link is at v1; bumping any link's version raises it by as much. */
  @Override
  public int version() {
    return chain.stream().mapToInt(BehaviorClassifier::version).sum() - chain.size() + 1;
  }

  @Override
  public Classification classify(String response) {
    Classification last = null;
    for (BehaviorClassifier classifier : chain) {
      last = classifier.classify(response);
      if (last.present()) {
        return last;
      }
    }
    return new Classification(null, last.method());
  }
}
