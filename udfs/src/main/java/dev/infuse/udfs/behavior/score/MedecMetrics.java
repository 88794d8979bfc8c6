package dev.infuse.udfs.behavior.score;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * MEDEC's own metrics, defined as in the MEDIQA-CORR 2024 evaluation script ({@code
 * evaluation/mediqa-corr-2024-eval-script-2-all-metrics.py} of abachaa/MEDIQA-CORR-2024):
 *
 * <ul>
 *   <li>{@code error_flag_accuracy}: texts whose predicted flag equals the reference / all
 *       reference texts; a missing prediction counts as wrong.
 *   <li>{@code error_sentence_accuracy}: texts whose predicted sentence id equals the reference id
 *       / all reference texts; a correct text (-1) matches a predicted -1; missing is wrong.
 *   <li>Corrections: a prediction with flag 0 is "NA" whatever it says; otherwise its correction
 *       with whitespace collapsed and leading and trailing double quotes stripped. A reference
 *       without a correction is "NA". Per text: both NA scores 1 (counted, not scored); exactly one
 *       NA, or a missing prediction, scores 0; both non-NA is a scored pair.
 *   <li>{@code correction_rouge1_f} (the script's {@code R1F_subset_check}): the mean ROUGE-1 F
 *       ({@link Rouge1}) over the scored pairs; NaN with none.
 *   <li>{@code correction_rouge1_f_composite} ({@code R1FC}): (sum of the pairs' ROUGE-1 F + texts
 *       where both are NA) / all reference texts.
 * </ul>
 *
 * <p>Left out: BERTScore (microsoft/deberta-xlarge-mnli) and BLEURT (BLEURT-20) need models that
 * are not available here, and so does the script's {@code AggregateC}, their mean with ROUGE-1;
 * ROUGE-2 and ROUGE-L are not computed. {@link MedecResult#notComputed()} names them, so a report
 * can show the gap. Ids are compared as integers where the script compares strings (a "05" would
 * differ there); a null predicted id (a flag without a sentence) matches nothing.
 */
public final class MedecMetrics {
  /** The script's marker for "no correction". */
  public static final String NA = "NA";

  /** The script's metrics not computed here, by its names. */
  public static final List<String> NOT_COMPUTED =
      List.of("R2F", "RLF", "BERTSCORE", "BLEURT", "AggregateC");

  /**
   * All the numbers.
   *
   * @param metrics the four metrics above, each over {@code subset=all}
   * @param counters the script's counters: total_texts, reference_na, total_system_texts,
   *     system_provided_na, system_provided_correct_na, scored_pairs
   * @param notComputed the script's metrics left out
   */
  public record MedecResult(
      List<Metric> metrics, Map<String, Integer> counters, List<String> notComputed) {
    /** The value of the metric named {@code name}. */
    public double value(String name) {
      return metrics.stream()
          .filter(m -> m.name().equals(name))
          .findFirst()
          .orElseThrow(() -> new IllegalArgumentException("metric: no " + name))
          .value();
    }
  }

  private MedecMetrics() {}

  /**
   * @param references one per text; a text id given twice is an error
   * @param predictions by text id; texts without one count as missing, ids without a reference are
   *     ignored (as the script does)
   */
  public static MedecResult compute(
      List<MedecReference> references, Map<String, MedecPrediction> predictions) {
    Objects.requireNonNull(references, "references");
    Map<String, MedecPrediction> predicted = predictions == null ? Map.of() : predictions;
    Set<String> ids = new HashSet<>();
    int flags = 0;
    int sentences = 0;
    Map<String, Integer> counters = new LinkedHashMap<>();
    for (String name :
        List.of(
            "total_texts",
            "reference_na",
            "total_system_texts",
            "system_provided_na",
            "system_provided_correct_na",
            "scored_pairs")) {
      counters.put(name, 0);
    }
    double rougeSum = 0;
    for (MedecReference reference : references) {
      if (!ids.add(reference.textId())) {
        throw new IllegalArgumentException(
            "references: text id " + reference.textId() + " given twice, expected one per text");
      }
      counters.merge("total_texts", 1, Integer::sum);
      boolean referenceNa = reference.correctedSentence().equals(NA);
      if (referenceNa) {
        counters.merge("reference_na", 1, Integer::sum);
      }
      MedecPrediction prediction = predicted.get(reference.textId());
      if (prediction == null) {
        continue;
      }
      if (prediction.errorFlag() == reference.errorFlag()) {
        flags++;
      }
      if (prediction.sentenceId() != null
          && prediction.sentenceId() == reference.errorSentenceId()) {
        sentences++;
      }
      counters.merge("total_system_texts", 1, Integer::sum);
      String candidate = candidate(prediction);
      boolean candidateNa = candidate.equals(NA);
      if (candidateNa) {
        counters.merge("system_provided_na", 1, Integer::sum);
      }
      if (referenceNa && candidateNa) {
        counters.merge("system_provided_correct_na", 1, Integer::sum);
      } else if (!referenceNa && !candidateNa) {
        counters.merge("scored_pairs", 1, Integer::sum);
        rougeSum += Rouge1.f(candidate, reference.correctedSentence());
      }
    }
    int total = references.size();
    int pairs = counters.get("scored_pairs");
    List<Metric> metrics = new ArrayList<>();
    metrics.add(new Metric("error_flag_accuracy", "all", ratio(flags, total), total));
    metrics.add(new Metric("error_sentence_accuracy", "all", ratio(sentences, total), total));
    metrics.add(new Metric("correction_rouge1_f", "all", ratio(rougeSum, pairs), pairs));
    metrics.add(
        new Metric(
            "correction_rouge1_f_composite",
            "all",
            ratio(rougeSum + counters.get("system_provided_correct_na"), total),
            total));
    return new MedecResult(List.copyOf(metrics), Map.copyOf(counters), NOT_COMPUTED);
  }

  /** The correction as the script keeps it: NA for flag 0, else collapsed and unquoted. */
  static String candidate(MedecPrediction prediction) {
    if (prediction.errorFlag() == 0 || prediction.correction() == null) {
      return NA;
    }
    String text = String.join(" ", prediction.correction().strip().split("\\s+")).strip();
    while (text.startsWith("\"") && text.length() > 1) {
      text = text.substring(1);
    }
    while (text.endsWith("\"") && text.length() > 1) {
      text = text.substring(0, text.length() - 1);
    }
    return text;
  }

  private static double ratio(double numerator, long denominator) {
    return denominator == 0 ? Double.NaN : numerator / denominator;
  }
}
