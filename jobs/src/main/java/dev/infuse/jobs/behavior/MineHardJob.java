package dev.infuse.jobs.behavior;

import static org.apache.spark.sql.functions.array;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;

import dev.infuse.jobs.contract.Contract;
import dev.infuse.jobs.contract.Contracts;
import dev.infuse.jobs.io.WriteResult;
import dev.infuse.jobs.run.JobRun;
import dev.infuse.jobs.run.RunCounts;
import dev.infuse.jobs.score.BehaviorScores;
import dev.infuse.udfs.behavior.score.BehaviorOutcome;
import dev.infuse.udfs.behavior.score.HardMiner;
import dev.infuse.udfs.behavior.score.RunOutcome;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * {@code mine-hard}: BehaviorBench-Hard. Given the behaviour predictions of a panel of M answer
 * runs ({@code behavior.hard.runs}, or every run on behavior_tasks), selects the tasks at least m
 * of them fail ({@link HardMiner}: a wrong behaviour, or a proactive flag naming the wrong thing),
 * optionally at most {@code max_per_category} per category. Writes {@code behavior_tasks_hard} (the
 * selection replaces the table's rows) with the rule and the panel, and each panel run's macro-F1
 * on the full set and on Hard into {@code behavior_scores}. Only tasks every panel run answered can
 * be judged; the others are counted and left out, and the note says how many.
 */
public final class MineHardJob {
  public static final String NAME = "mine-hard";
  private static final String PREDICTIONS = "behavior_predictions";

  private final JobRun run;
  private final BehaviorConfig options;

  public MineHardJob(JobRun run) {
    this.run = run;
    this.options = run.config().section(BehaviorConfig.class);
  }

  public RunCounts run() {
    List<String> panel = panel();
    BehaviorConfig.Hard hard = options.hard();
    if (hard.minFailures() > panel.size()) {
      throw new IllegalArgumentException(
          "behavior.hard.min_failures: got "
              + hard.minFailures()
              + " with a panel of "
              + panel.size()
              + " run(s) "
              + panel
              + ", expected at most the panel's size");
    }
    BehaviorScores scores = new BehaviorScores(run);
    Map<String, List<BehaviorScores.Answered>> answered = scores.answered(panel);
    // Judge only the tasks every panel run answered: a missing answer is not a failure.
    Map<String, Integer> answeredBy = new HashMap<>();
    answered
        .values()
        .forEach(
            list -> list.forEach(a -> answeredBy.merge(a.outcome().taskId(), 1, Integer::sum)));
    Set<String> common = new HashSet<>();
    answeredBy.forEach(
        (task, count) -> {
          if (count == panel.size()) {
            common.add(task);
          }
        });
    List<RunOutcome> outcomes = new ArrayList<>();
    for (String runId : panel) {
      for (BehaviorScores.Answered a : answered.getOrDefault(runId, List.of())) {
        if (common.contains(a.outcome().taskId())) {
          outcomes.add(new RunOutcome(runId, a.outcome()));
        }
      }
    }
    HardMiner.Result mined = HardMiner.select(outcomes, hard.minFailures(), hard.maxPerCategory());
    WriteResult write = writeHard(mined);
    List<Row> scoreRows = panelScores(scores, panel, answered, new HashSet<>(mined.taskIds()));
    scores.write(scoreRows);

    long tasks = common.size();
    long partial = answeredBy.size() - common.size();
    run.out()
        .printf(
            Locale.ROOT,
            "mine-hard: %d task(s) answered by all %d panel run(s): %d Hard (%s)%s%n",
            tasks,
            panel.size(),
            mined.taskIds().size(),
            mined.rule(),
            partial == 0 ? "" : "; " + partial + " task(s) not answered by every run left out");
    mined
        .byCategory()
        .forEach(
            (category, ids) ->
                run.out().printf(Locale.ROOT, "  %-24s %6d%n", category, ids.size()));
    for (Row row : scoreRows) {
      run.out()
          .printf(
              Locale.ROOT,
              "  run %s: macro-F1 over %s %.3f (n=%d)%n",
              row.getString(0),
              row.getString(1).startsWith(BehaviorScores.HARD)
                  ? row.getString(1).substring(BehaviorScores.HARD.length() + 1) + " on Hard"
                  : row.getString(1) + " on all tasks",
              row.getDouble(3),
              row.getLong(4));
    }
    Map<String, Long> details = new LinkedHashMap<>();
    details.put("hard.tasks", (long) mined.taskIds().size());
    details.put("hard.panel", (long) panel.size());
    details.put("tasks.not_answered_by_every_run", partial);
    details.put("behavior_tasks_hard.inserted", write.inserted());
    return new RunCounts(tasks + partial, tasks + partial, 0, details);
  }

  /** behavior.hard.runs, or every behaviour answer run on behavior_tasks, sorted. */
  private List<String> panel() {
    if (!run.warehouse().exists(PREDICTIONS)) {
      throw new IllegalArgumentException(
          "behavior.hard.runs: no behavior_predictions yet, expected answer --mode behavior runs"
              + " (the panel) first");
    }
    List<String> present =
        run.warehouse()
            .read(PREDICTIONS)
            .filter(col("tasks_table").equalTo(BehaviorConfig.TASKS))
            .select("run_id")
            .distinct()
            .orderBy("run_id")
            .as(Encoders.STRING())
            .collectAsList();
    if (options.hard().runs().isEmpty()) {
      if (present.isEmpty()) {
        throw new IllegalArgumentException(
            "behavior.hard.runs: got [] and no behaviour run on behavior_tasks, expected answer"
                + " --mode behavior runs first");
      }
      return present;
    }
    for (String id : options.hard().runs()) {
      if (!present.contains(id)) {
        throw new IllegalArgumentException(
            "behavior.hard.runs: got "
                + id
                + ", expected a behaviour answer run on behavior_tasks, one of "
                + present);
      }
    }
    return options.hard().runs().stream().sorted().toList();
  }

  /** The selection, with its failures, rule and panel, replacing behavior_tasks_hard's rows. */
  private WriteResult writeHard(HardMiner.Result mined) {
    Contract contract = Contracts.load("behavior_tasks_hard");
    StructType selectedSchema =
        new StructType()
            .add("selected_task", DataTypes.StringType, false)
            .add("failures", DataTypes.IntegerType, false);
    List<Row> selected = new ArrayList<>();
    for (String task : mined.taskIds()) {
      selected.add(RowFactory.create(task, mined.failures().get(task)));
    }
    Dataset<Row> picks = run.spark().createDataFrame(selected, selectedSchema);
    Column[] columns =
        contract.columnNames().stream()
            .map(
                c ->
                    switch (c) {
                      case "failures" -> col("failures");
                      case "panel" ->
                          array(mined.runIds().stream().map(id -> lit(id)).toArray(Column[]::new))
                              .as("panel");
                      case "rule" -> lit(mined.rule()).as("rule");
                      case "run_id" -> lit(run.runId()).as("run_id");
                      default -> col(c);
                    })
            .toArray(Column[]::new);
    Dataset<Row> rows =
        run.warehouse()
            .read(BehaviorConfig.TASKS)
            .join(picks, col("task_id").equalTo(col("selected_task")))
            .select(columns);
    WriteResult write = run.warehouse().upsert(contract, rows);
    // The selection replaces the table: tasks a former panel found Hard go.
    Dataset<Row> stale =
        run.warehouse()
            .read(BehaviorConfig.HARD_TASKS)
            .select("task_id")
            .except(picks.select(col("selected_task").as("task_id")));
    run.warehouse().deleteKeys(contract, stale);
    return write;
  }

  /** Each panel run's macro-F1s on all the tasks it answered and on the Hard ones. */
  private List<Row> panelScores(
      BehaviorScores scores,
      List<String> panel,
      Map<String, List<BehaviorScores.Answered>> answered,
      Set<String> hardTasks) {
    Map<String, Row> heads = scores.heads(panel);
    List<Row> rows = new ArrayList<>();
    for (String runId : panel) {
      List<BehaviorOutcome> all =
          answered.getOrDefault(runId, List.of()).stream()
              .map(BehaviorScores.Answered::outcome)
              .toList();
      Row head = heads.get(runId);
      rows.addAll(
          scores.macroF1Rows(runId, all, "", head.getString(1), head.getString(2), run.runId()));
      List<BehaviorOutcome> onHard =
          all.stream().filter(o -> hardTasks.contains(o.taskId())).toList();
      if (!onHard.isEmpty()) {
        rows.addAll(
            scores.hardRows(runId, onHard, head.getString(1), head.getString(2), run.runId()));
      }
    }
    return rows;
  }
}
