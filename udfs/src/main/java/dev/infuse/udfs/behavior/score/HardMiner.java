package dev.infuse.udfs.behavior.score;

import dev.infuse.udfs.behavior.BehaviorType;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Hard tasks: those at least m of a panel's M runs fail. A run fails a task when its behaviour is
 * wrong or missing, or when it flags a proactive task rightly but names the wrong content ({@code
 * contentCorrect == false}; null, nothing to check, is not a failure). Every task must have an
 * outcome from every run of the panel, once: a gap would silently lower its failure count.
 *
 * <p>Stratified, the threshold is the same, and at most {@code maxPerCategory} tasks are kept per
 * category, the most failed first (ties by task id), so one category cannot crowd out the others.
 */
public final class HardMiner {
  /**
   * The rule and what it selected.
   *
   * @param m the failures needed (a fraction is resolved to ceil(fraction × M), at least 1)
   * @param panelSize M
   * @param runIds the panel's runs, sorted
   * @param maxPerCategory the per-category cap when stratified, else null
   * @param taskIds the selected tasks, sorted
   * @param byCategory the selected tasks per category
   * @param failures each selected task's failure count
   */
  public record Result(
      int m,
      int panelSize,
      List<String> runIds,
      Integer maxPerCategory,
      List<String> taskIds,
      Map<String, List<String>> byCategory,
      Map<String, Integer> failures) {
    /** "m of M runs fail" with the cap, for the record. */
    public String rule() {
      return m
          + " of "
          + panelSize
          + " runs fail"
          + (maxPerCategory == null ? "" : ", at most " + maxPerCategory + " per category");
    }
  }

  private HardMiner() {}

  /** Whether one run failed one task (see the class comment). */
  public static boolean failed(BehaviorOutcome outcome) {
    if (!outcome.behaviorCorrect()) {
      return true;
    }
    return outcome.gold() == BehaviorType.PROACTIVE
        && Boolean.FALSE.equals(outcome.contentCorrect());
  }

  /** Tasks at least {@code m} runs fail, not stratified. */
  public static Result select(List<RunOutcome> outcomes, int m) {
    return select(outcomes, m, null);
  }

  /** Tasks at least ceil({@code fraction} × M) runs fail (at least one run). */
  public static Result selectFraction(List<RunOutcome> outcomes, double fraction, Integer cap) {
    if (!(fraction > 0 && fraction <= 1)) {
      throw new IllegalArgumentException("fraction: got " + fraction + ", expected (0, 1]");
    }
    int panel = runIds(outcomes).size();
    return select(outcomes, Math.max(1, (int) Math.ceil(fraction * panel - 1e-9)), cap);
  }

  /**
   * @param m failures needed, 1 ≤ m ≤ M
   * @param maxPerCategory null for no stratification, else the cap per category (≥ 1)
   * @throws IllegalArgumentException for m out of range, a bad cap, a task missing a run's outcome,
   *     or an outcome given twice
   */
  public static Result select(List<RunOutcome> outcomes, int m, Integer maxPerCategory) {
    Objects.requireNonNull(outcomes, "outcomes");
    Set<String> runs = runIds(outcomes);
    if (m < 1 || m > runs.size()) {
      throw new IllegalArgumentException(
          "m: got " + m + ", expected 1 to the panel size " + runs.size());
    }
    if (maxPerCategory != null && maxPerCategory < 1) {
      throw new IllegalArgumentException(
          "maxPerCategory: got " + maxPerCategory + ", expected >= 1");
    }
    Map<String, Map<String, Boolean>> byTask = new TreeMap<>();
    Map<String, String> categories = new LinkedHashMap<>();
    for (RunOutcome run : outcomes) {
      String task = run.outcome().taskId();
      categories.putIfAbsent(task, run.outcome().category());
      Map<String, Boolean> perRun = byTask.computeIfAbsent(task, t -> new TreeMap<>());
      if (perRun.put(run.runId(), failed(run.outcome())) != null) {
        throw new IllegalArgumentException(
            "outcomes: task " + task + " has run " + run.runId() + " twice, expected once");
      }
    }
    Map<String, Integer> failures = new TreeMap<>();
    for (Map.Entry<String, Map<String, Boolean>> task : byTask.entrySet()) {
      if (!task.getValue().keySet().equals(runs)) {
        Set<String> absent = new TreeSet<>(runs);
        absent.removeAll(task.getValue().keySet());
        throw new IllegalArgumentException(
            "outcomes: task " + task.getKey() + " has no outcome from run(s) " + absent);
      }
      int failed = (int) task.getValue().values().stream().filter(f -> f).count();
      if (failed >= m) {
        failures.put(task.getKey(), failed);
      }
    }
    Map<String, List<String>> byCategory = new TreeMap<>();
    for (String task : failures.keySet()) {
      byCategory.computeIfAbsent(categories.get(task), c -> new ArrayList<>()).add(task);
    }
    if (maxPerCategory != null) {
      for (Map.Entry<String, List<String>> category : byCategory.entrySet()) {
        List<String> ranked = new ArrayList<>(category.getValue());
        ranked.sort(Comparator.comparing((String t) -> -failures.get(t)).thenComparing(t -> t));
        List<String> kept =
            new ArrayList<>(ranked.subList(0, Math.min(maxPerCategory, ranked.size())));
        kept.sort(Comparator.naturalOrder());
        category.setValue(kept);
      }
      failures.keySet().retainAll(byCategory.values().stream().flatMap(List::stream).toList());
    }
    byCategory.replaceAll((c, tasks) -> List.copyOf(tasks));
    return new Result(
        m,
        runs.size(),
        List.copyOf(runs),
        maxPerCategory,
        List.copyOf(failures.keySet()),
        java.util.Collections.unmodifiableMap(byCategory),
        java.util.Collections.unmodifiableMap(failures));
  }

  private static Set<String> runIds(List<RunOutcome> outcomes) {
    Set<String> runs = new TreeSet<>();
    for (RunOutcome run : outcomes) {
      runs.add(run.runId());
    }
    if (runs.isEmpty()) {
      throw new IllegalArgumentException("outcomes: got none, expected a panel's outcomes");
    }
    return runs;
  }
}
