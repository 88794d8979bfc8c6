package dev.infuse.udfs.behavior.score;

import dev.infuse.udfs.behavior.BehaviorType;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * Behaviour metrics over scored responses. Per label L, with TP, FP, FN counted over all outcomes:
 * precision = TP / (TP + FP), recall = TP / (TP + FN), F1 = 2TP / (2TP + FP + FN); NaN where the
 * denominator is 0 (reported with n = 0).
 *
 * <ul>
 *   <li>{@code macro_f1} over {@code types}: the mean F1 over the behaviour types present in the
 *       gold or the predictions; a type absent from both is left out of the mean, and a present
 *       type with no true positive scores 0, as sklearn's {@code f1_score(average='macro')} does
 *       with its default labels. A missing prediction is never a label: it is a false negative of
 *       its gold type only (sklearn with {@code labels=} the present types).
 *   <li>{@code macro_f1} over {@code categories}: the predicted category of an outcome is its gold
 *       category when the predicted type equals the gold type (the category's type), else the
 *       bucket {@code other:<predicted type>}; the labels averaged are the gold categories plus the
 *       buckets predicted (sklearn's present labels), so a wrong type costs precision once per
 *       bucket it lands in. Missing predictions again are false negatives only.
 *   <li>{@code precision}, {@code recall}, {@code f1} per {@code type=<id>} and {@code
 *       category=<name>} (gold categories only).
 *   <li>{@code accuracy}: predicted == gold over all outcomes; {@code missing_rate}: missing over
 *       all.
 *   <li>{@code over_proactivity}: proactive predictions on restraint tasks / restraint tasks.
 *   <li>{@code under_proactivity}: non-proactive (missing included) on proactive tasks / proactive
 *       tasks.
 *   <li>{@code content_accuracy} over {@code correct_flags}: content correct / outcomes with gold
 *       and prediction proactive and a content verdict; over {@code correct_behavior}: the same for
 *       every gold type.
 * </ul>
 */
public final class BehaviorMetrics {
  /** The confusion matrix's column for a missing prediction. */
  public static final String MISSING = "missing";

  /** Bumped on any change that alters a number. */
  public static final int VERSION = 1;

  /**
   * @param metrics every number, as (name, subset, value, n)
   * @param confusion gold type id → predicted type id or {@value #MISSING} → count; every row and
   *     column present, zeros included
   */
  public record Result(List<Metric> metrics, Map<String, Map<String, Long>> confusion) {
    /** The value of {@code name} over {@code subset}. */
    public double value(String name, String subset) {
      return metrics.stream()
          .filter(m -> m.name().equals(name) && m.subset().equals(subset))
          .findFirst()
          .orElseThrow(() -> new IllegalArgumentException("metric: no " + name + " over " + subset))
          .value();
    }
  }

  private BehaviorMetrics() {}

  public static Result compute(List<BehaviorOutcome> outcomes) {
    List<Metric> metrics = new ArrayList<>();
    int total = outcomes.size();
    long correct = outcomes.stream().filter(BehaviorOutcome::behaviorCorrect).count();
    long missing = outcomes.stream().filter(o -> o.predicted() == null).count();
    metrics.add(new Metric("accuracy", "all", ratio(correct, total), total));
    metrics.add(new Metric("missing_rate", "all", ratio(missing, total), total));

    Function<BehaviorOutcome, String> goldType = o -> o.gold().id();
    Function<BehaviorOutcome, String> predType =
        o -> o.predicted() == null ? null : o.predicted().id();
    Set<String> typeLabels = new LinkedHashSet<>();
    for (BehaviorType type : BehaviorType.values()) {
      boolean present = outcomes.stream().anyMatch(o -> o.gold() == type || o.predicted() == type);
      if (present) {
        typeLabels.add(type.id());
      }
    }
    perLabel(metrics, outcomes, typeLabels, goldType, predType, "types", "type=");

    Function<BehaviorOutcome, String> goldCategory = BehaviorOutcome::category;
    Function<BehaviorOutcome, String> predCategory = BehaviorMetrics::predictedCategory;
    Set<String> categoryLabels = new TreeSet<>();
    for (BehaviorOutcome o : outcomes) {
      categoryLabels.add(o.category());
      if (predCategory.apply(o) != null) {
        categoryLabels.add(predCategory.apply(o));
      }
    }
    perLabel(
        metrics, outcomes, categoryLabels, goldCategory, predCategory, "categories", "category=");

    long restraint = outcomes.stream().filter(o -> o.gold() == BehaviorType.RESTRAINT).count();
    long overFlags =
        outcomes.stream()
            .filter(
                o -> o.gold() == BehaviorType.RESTRAINT && o.predicted() == BehaviorType.PROACTIVE)
            .count();
    metrics.add(
        new Metric("over_proactivity", "restraint_tasks", ratio(overFlags, restraint), restraint));
    long proactive = outcomes.stream().filter(o -> o.gold() == BehaviorType.PROACTIVE).count();
    long under =
        outcomes.stream()
            .filter(
                o -> o.gold() == BehaviorType.PROACTIVE && o.predicted() != BehaviorType.PROACTIVE)
            .count();
    metrics.add(
        new Metric("under_proactivity", "proactive_tasks", ratio(under, proactive), proactive));

    metrics.add(content("correct_flags", outcomes, BehaviorType.PROACTIVE));
    metrics.add(content("correct_behavior", outcomes, null));
    return new Result(List.copyOf(metrics), confusion(outcomes));
  }

  /** The gold category when the type is right, {@code other:<type>} when wrong, null if missing. */
  static String predictedCategory(BehaviorOutcome o) {
    if (o.predicted() == null) {
      return null;
    }
    return o.predicted() == o.gold() ? o.category() : "other:" + o.predicted().id();
  }

  private static void perLabel(
      List<Metric> metrics,
      List<BehaviorOutcome> outcomes,
      Set<String> labels,
      Function<BehaviorOutcome, String> gold,
      Function<BehaviorOutcome, String> predicted,
      String averageSubset,
      String prefix) {
    double f1Sum = 0;
    for (String label : labels) {
      long tp = 0;
      long fp = 0;
      long fn = 0;
      for (BehaviorOutcome o : outcomes) {
        boolean isGold = label.equals(gold.apply(o));
        boolean isPred = label.equals(predicted.apply(o));
        tp += isGold && isPred ? 1 : 0;
        fp += !isGold && isPred ? 1 : 0;
        fn += isGold && !isPred ? 1 : 0;
      }
      double f1 = 2 * tp + fp + fn == 0 ? 0.0 : 2.0 * tp / (2 * tp + fp + fn);
      f1Sum += f1;
      boolean goldLabel = outcomes.stream().anyMatch(o -> label.equals(gold.apply(o)));
      if (goldLabel || prefix.equals("type=")) {
        metrics.add(new Metric("precision", prefix + label, ratio(tp, tp + fp), tp + fp));
        metrics.add(new Metric("recall", prefix + label, ratio(tp, tp + fn), tp + fn));
        metrics.add(new Metric("f1", prefix + label, f1, tp + fn));
      }
    }
    metrics.add(
        new Metric(
            "macro_f1",
            averageSubset,
            labels.isEmpty() ? Double.NaN : f1Sum / labels.size(),
            labels.size()));
  }

  private static Metric content(String subset, List<BehaviorOutcome> outcomes, BehaviorType only) {
    long checked = 0;
    long right = 0;
    for (BehaviorOutcome o : outcomes) {
      if ((only == null || o.gold() == only) && o.behaviorCorrect() && o.contentCorrect() != null) {
        checked++;
        right += o.contentCorrect() ? 1 : 0;
      }
    }
    return new Metric("content_accuracy", subset, ratio(right, checked), checked);
  }

  private static Map<String, Map<String, Long>> confusion(List<BehaviorOutcome> outcomes) {
    Map<String, Map<String, Long>> matrix = new LinkedHashMap<>();
    for (BehaviorType gold : BehaviorType.values()) {
      Map<String, Long> row = new LinkedHashMap<>();
      for (BehaviorType predicted : BehaviorType.values()) {
        row.put(predicted.id(), 0L);
      }
      row.put(MISSING, 0L);
      matrix.put(gold.id(), row);
    }
    for (BehaviorOutcome o : outcomes) {
      String column = o.predicted() == null ? MISSING : o.predicted().id();
      matrix.get(o.gold().id()).merge(column, 1L, Long::sum);
    }
    Map<String, Map<String, Long>> frozen = new LinkedHashMap<>();
    matrix.forEach((gold, row) -> frozen.put(gold, java.util.Collections.unmodifiableMap(row)));
    return java.util.Collections.unmodifiableMap(frozen);
  }

  private static double ratio(long numerator, long denominator) {
    return denominator == 0 ? Double.NaN : (double) numerator / denominator;
  }
}
