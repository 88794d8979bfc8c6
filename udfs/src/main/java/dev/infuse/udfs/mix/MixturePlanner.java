package dev.infuse.udfs.mix;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Turns a {@link MixtureSpec} and the tokens each source has into a per-source plan. A source with
 * a positive share and no tokens is an error when the mixture has a token target (it cannot be what
 * it says); a source that has too few tokens even at {@code max_epochs} is planned at that cap and
 * its shortfall reported, so the manifest says how far the shards fall from the mixture.
 */
public final class MixturePlanner {
  private MixturePlanner() {}

  /**
   * The plan, in {@link MixtureSpec#SOURCES} order.
   *
   * @param available tokens per source; absent sources have none
   * @throws IllegalArgumentException listing every problem of the spec or of the sources
   */
  public static Map<String, SourcePlan> plan(MixtureSpec spec, Map<String, Long> available) {
    List<String> problems = new ArrayList<>(spec.problems());
    for (String source : available.keySet()) {
      if (!MixtureSpec.SOURCES.contains(source)) {
        problems.add(
            "source "
                + source
                + ": unknown, expected one of "
                + String.join(", ", MixtureSpec.SOURCES));
      }
    }
    Map<String, Double> shares = spec.shares();
    for (Map.Entry<String, Double> share : shares.entrySet()) {
      // With total_tokens 0 the shares are not applied (every token once), so an empty source is no
      // contradiction.
      if (spec.totalTokens() > 0
          && share.getValue() > 0
          && available.getOrDefault(share.getKey(), 0L) <= 0) {
        problems.add(
            "source "
                + share.getKey()
                + ": empty, but the mixture gives it a share of "
                + String.format(java.util.Locale.ROOT, "%.4f", share.getValue())
                + "; expected tokens in it, or a share of 0");
      }
    }
    if (!problems.isEmpty()) {
      throw new IllegalArgumentException(
          "mixture " + spec.name() + ": " + String.join("; ", problems));
    }
    Map<String, SourcePlan> plan = new LinkedHashMap<>();
    for (Map.Entry<String, Double> share : shares.entrySet()) {
      String source = share.getKey();
      long have = available.getOrDefault(source, 0L);
      if (spec.totalTokens() == 0) {
        // Everything once, whatever the shares: the natural mixture of what was generated.
        plan.put(source, new SourcePlan(source, share.getValue(), have, have, have > 0 ? 1 : 0, 0));
        continue;
      }
      long budget = Math.round(spec.totalTokens() * share.getValue());
      double epochs = have == 0 ? 0 : Math.min(spec.maxEpochs(), (double) budget / have);
      long planned = Math.round(epochs * have);
      plan.put(
          source,
          new SourcePlan(
              source, share.getValue(), have, budget, epochs, Math.max(0, budget - planned)));
    }
    return plan;
  }
}
