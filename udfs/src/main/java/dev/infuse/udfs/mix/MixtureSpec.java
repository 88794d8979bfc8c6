package dev.infuse.udfs.mix;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A training mixture, as {@code conf/mixtures/*.yaml} states it: how many tokens to train on and
 * how they split between synthetic QA, documents (original and synthetic, by kind) and replay text.
 *
 * <p>The QA:document split is its own knob ({@code qaFraction}), because the Synthetic Mixed
 * Training result is that mixing the two beats either alone: a sweep varies it while the document
 * weights stay.
 *
 * @param name the mixture's name, recorded in the shard manifest
 * @param version bumped when the mixture's meaning changes, recorded with the name
 * @param totalTokens the target number of training tokens; 0 takes every available token once (then
 *     {@code qaFraction} and the weights are not applied)
 * @param qaFraction the share of non-replay tokens from {@link #QA}: QA:documents = f : 1-f
 * @param replayFraction the share of all tokens from {@link #REPLAY}; 0 for none
 * @param documentWeights the split of the document share among {@link #DOCUMENT_SOURCES}; must sum
 *     to 1
 * @param maxEpochs the most times a row may be repeated to fill a source's budget (upsampling)
 * @param seed keys the stateless sampling and the order; the same seed gives the same shards
 */
public record MixtureSpec(
    String name,
    int version,
    long totalTokens,
    double qaFraction,
    double replayFraction,
    Map<String, Double> documentWeights,
    double maxEpochs,
    long seed) {

  public static final String QA = "synthetic_qa";
  public static final String REPLAY = "replay";

  /** Document sources: original documents and each kind of synthetic document. */
  public static final List<String> DOCUMENT_SOURCES =
      List.of(
          "documents", "synthetic_docs.rephrase", "synthetic_docs.entity", "synthetic_docs.focal");

  /** Every source a mixture can draw from. */
  public static final List<String> SOURCES =
      List.of(
          QA,
          "documents",
          "synthetic_docs.rephrase",
          "synthetic_docs.entity",
          "synthetic_docs.focal",
          REPLAY);

  private static final double SUM_TOLERANCE = 1e-6;

  public MixtureSpec {
    documentWeights = documentWeights == null ? Map.of() : new LinkedHashMap<>(documentWeights);
  }

  /**
   * Every problem with this mixture, each naming the key and the expected value; empty when valid.
   */
  public List<String> problems() {
    List<String> problems = new ArrayList<>();
    if (name == null || name.isBlank()) {
      problems.add("name: got nothing, expected a mixture name");
    }
    if (version < 1) {
      problems.add("version: got " + version + ", expected an integer >= 1");
    }
    if (totalTokens < 0) {
      problems.add(
          "total_tokens: got " + totalTokens + ", expected >= 0 (0 takes every token once)");
    }
    fraction(problems, "qa_fraction", qaFraction);
    fraction(problems, "replay_fraction", replayFraction);
    if (replayFraction >= 1) {
      problems.add(
          "replay_fraction: got "
              + replayFraction
              + ", expected < 1 (some tokens must be QA or documents)");
    }
    double sum = 0;
    for (Map.Entry<String, Double> weight : documentWeights.entrySet()) {
      if (!DOCUMENT_SOURCES.contains(weight.getKey())) {
        problems.add(
            "document_weights."
                + weight.getKey()
                + ": unknown source, expected one of "
                + String.join(", ", DOCUMENT_SOURCES));
      }
      Double value = weight.getValue();
      if (value == null || !(value >= 0)) {
        problems.add(
            "document_weights." + weight.getKey() + ": got " + value + ", expected a weight >= 0");
      } else {
        sum += value;
      }
    }
    if (qaFraction < 1 && Math.abs(sum - 1) > SUM_TOLERANCE) {
      problems.add(
          "document_weights: sum to "
              + sum
              + ", expected 1 (they split the document share"
              + " 1 - qa_fraction = "
              + (1 - qaFraction)
              + ")");
    }
    if (!(maxEpochs >= 1)) {
      problems.add("max_epochs: got " + maxEpochs + ", expected >= 1 (1 means no upsampling)");
    }
    return problems;
  }

  /**
   * Each source's share of the total tokens: QA gets (1 - replay) · qa_fraction, each document
   * source (1 - replay) · (1 - qa_fraction) · its weight, replay its fraction. The shares sum to 1.
   */
  public Map<String, Double> shares() {
    Map<String, Double> shares = new LinkedHashMap<>();
    double nonReplay = 1 - replayFraction;
    shares.put(QA, nonReplay * qaFraction);
    for (String source : DOCUMENT_SOURCES) {
      shares.put(source, nonReplay * (1 - qaFraction) * documentWeights.getOrDefault(source, 0.0));
    }
    shares.put(REPLAY, replayFraction);
    return shares;
  }

  private static void fraction(List<String> problems, String key, double value) {
    if (!(value >= 0 && value <= 1)) {
      problems.add(key + ": got " + value + ", expected a fraction in 0..1");
    }
  }
}
