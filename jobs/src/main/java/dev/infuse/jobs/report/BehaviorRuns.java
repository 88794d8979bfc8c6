package dev.infuse.jobs.report;

import static org.apache.spark.sql.functions.col;

import dev.infuse.jobs.io.Warehouse;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * The behaviour recipe's part of a report, read from {@code behavior_scores}: each behaviour answer
 * run's headline metrics on all its tasks and on the Hard subset, and the panel's mean macro-F1 on
 * both, which is what BehaviorBench-Hard is judged by. The table holds one current row per (run,
 * subset, metric), since a rescore replaces a run's rows, so no score-run selection is needed.
 */
public final class BehaviorRuns {
  static final List<String> COLUMNS =
      List.of("run_id", "subset", "metric", "value", "n", "model", "classified_by", "score_run_id");

  /** macro-F1 over behaviour types: the paper's headline number. */
  public static final String TYPES_F1 = "types|macro_f1";

  public static final String CATEGORIES_F1 = "categories|macro_f1";
  public static final String HARD_TYPES_F1 = "hard/types|macro_f1";
  public static final String HARD_CATEGORIES_F1 = "hard/categories|macro_f1";

  /** The columns a report shows per run, as subset|metric keys, in order, with their headings. */
  public static final Map<String, String> SHOWN = shown();

  private BehaviorRuns() {}

  private static Map<String, String> shown() {
    Map<String, String> m = new LinkedHashMap<>();
    m.put(TYPES_F1, "macro-F1 (types)");
    m.put(CATEGORIES_F1, "macro-F1 (categories)");
    m.put("all|accuracy", "behaviour accuracy");
    m.put("restraint_tasks|over_proactivity", "over-proactivity");
    m.put("proactive_tasks|under_proactivity", "under-proactivity");
    m.put("correct_flags|content_accuracy", "content accuracy (correct flags)");
    m.put("medec|medec_error_flag_accuracy", "MEDEC flag accuracy");
    m.put("medec|medec_error_sentence_accuracy", "MEDEC sentence accuracy");
    m.put("medec|medec_correction_rouge1_f_composite", "MEDEC ROUGE-1 composite");
    m.put(HARD_TYPES_F1, "Hard macro-F1 (types)");
    m.put(HARD_CATEGORIES_F1, "Hard macro-F1 (categories)");
    return Collections.unmodifiableMap(m);
  }

  /**
   * One behaviour answer run as scored.
   *
   * @param tasks the tasks it answered (n of its accuracy over all)
   * @param hardTasks the Hard tasks it was scored on, or 0 when it was not in a mine-hard panel
   * @param metrics every value by {@code subset|metric}
   * @param categoryF1 f1 per category, by category
   */
  public record Run(
      String runId,
      String model,
      String classifiedBy,
      long tasks,
      long hardTasks,
      Map<String, Double> metrics,
      Map<String, Double> categoryF1) {

    /** The value of {@code key} (subset|metric), or null when the run has none. */
    public Double metric(String key) {
      return metrics.get(key);
    }
  }

  /**
   * The panel's mean of {@code key} over the runs that have it, and how many do; null when none.
   */
  public record PanelMean(String key, double mean, int runs) {}

  /** The panel's means of the macro-F1s on all tasks and on Hard, for the runs that have each. */
  public static List<PanelMean> panelMeans(List<Run> runs) {
    List<PanelMean> out = new ArrayList<>();
    for (String key : List.of(TYPES_F1, CATEGORIES_F1, HARD_TYPES_F1, HARD_CATEGORIES_F1)) {
      double sum = 0;
      int count = 0;
      for (Run run : runs) {
        Double value = run.metric(key);
        if (value != null) {
          sum += value;
          count++;
        }
      }
      if (count > 0) {
        out.add(new PanelMean(key, sum / count, count));
      }
    }
    return out;
  }

  /**
   * The runs of {@code behavior_scores} that {@code wanted} names ([] for all of them), by run id;
   * a missing table or column, or a wanted run without rows, is said in {@code notes}.
   */
  static List<Run> load(Warehouse warehouse, List<String> wanted, Map<String, String> notes) {
    String table = "behavior_scores";
    if (!warehouse.exists(table)) {
      notes.put(table, "table " + table + " does not exist in the warehouse");
      return List.of();
    }
    Dataset<Row> rows = warehouse.read(table);
    Set<String> have = Set.of(rows.columns());
    List<String> missing = COLUMNS.stream().filter(c -> !have.contains(c)).toList();
    if (!missing.isEmpty()) {
      notes.put(table, "table " + table + " lacks the columns " + missing + ", so it is left out");
      return List.of();
    }
    if (!wanted.isEmpty()) {
      rows = rows.filter(col("run_id").isin(wanted.toArray()));
    }
    Map<String, Run> runs = new TreeMap<>();
    for (Row r :
        rows.select(COLUMNS.stream().map(c -> col(c)).toArray(org.apache.spark.sql.Column[]::new))
            .collectAsList()) {
      String runId = r.getString(0);
      String subset = r.getString(1);
      String metric = r.getString(2);
      double value = r.getDouble(3);
      long n = r.getLong(4);
      Run run =
          runs.computeIfAbsent(
              runId,
              id ->
                  new Run(
                      id, r.getString(5), r.getString(6), 0, 0, new TreeMap<>(), new TreeMap<>()));
      run.metrics().put(subset + "|" + metric, value);
      if (metric.equals("f1") && subset.startsWith("category=")) {
        run.categoryF1().put(subset.substring("category=".length()), value);
      }
      if (subset.equals("all") && metric.equals("accuracy")) {
        runs.put(runId, withCounts(run, n, run.hardTasks()));
      } else if (subset.equals("hard/types") && metric.equals("macro_f1")) {
        runs.put(runId, withCounts(run, run.tasks(), n));
      }
    }
    if (!wanted.isEmpty()) {
      Set<String> absent = new TreeSet<>(wanted);
      absent.removeAll(runs.keySet());
      if (!absent.isEmpty()) {
        notes.put(
            table + ".runs",
            "report.behavior_runs names "
                + absent
                + ", which have no rows in behavior_scores; expected runs of answer --mode"
                + " behavior that score has scored");
      }
    }
    if (runs.isEmpty() && !notes.containsKey(table + ".runs")) {
      notes.put(table, "table " + table + " has no rows for the selected runs");
    }
    return List.copyOf(runs.values());
  }

  private static Run withCounts(Run run, long tasks, long hardTasks) {
    return new Run(
        run.runId(),
        run.model(),
        run.classifiedBy(),
        tasks,
        hardTasks,
        run.metrics(),
        run.categoryF1());
  }
}
