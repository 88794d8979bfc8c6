package dev.infuse.jobs.score;

import static org.apache.spark.sql.functions.array_sort;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.collect_set;
import static org.apache.spark.sql.functions.concat_ws;
import static org.apache.spark.sql.functions.first;

import dev.infuse.jobs.contract.Contract;
import dev.infuse.jobs.contract.Contracts;
import dev.infuse.jobs.io.WriteResult;
import dev.infuse.jobs.run.JobRun;
import dev.infuse.udfs.behavior.BehaviorType;
import dev.infuse.udfs.behavior.GoldTarget;
import dev.infuse.udfs.behavior.score.BehaviorMetrics;
import dev.infuse.udfs.behavior.score.BehaviorOutcome;
import dev.infuse.udfs.behavior.score.MedecMetrics;
import dev.infuse.udfs.behavior.score.MedecPrediction;
import dev.infuse.udfs.behavior.score.MedecReference;
import dev.infuse.udfs.behavior.score.MedecResponseParser;
import dev.infuse.udfs.behavior.score.Metric;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;

/**
 * The behaviour recipe's metrics, for {@code score} and {@code mine-hard}: the udfs {@link
 * BehaviorMetrics} (macro-F1, precision and recall, confusion, over- and under-proactivity, content
 * accuracy) and {@link MedecMetrics} (MEDEC's own, on MEDEC-derived tasks) over each run's
 * behaviour predictions, as rows of {@code behavior_scores}. A run is a few thousand tasks, so its
 * outcomes are brought to the driver.
 */
public final class BehaviorScores {
  /** The subset of every task a run answered. */
  public static final String ALL = "all";

  /** The subset prefix of the tasks in behavior_tasks_hard. */
  public static final String HARD = "hard";

  /** BehaviorMetrics' macro-F1, over subset types or categories. */
  public static final String MACRO_F1 = "macro_f1";

  private static final String ANSWER_JOB = "answer";
  private static final String PREDICTIONS = "behavior_predictions";

  private final JobRun run;

  public BehaviorScores(JobRun run) {
    this.run = run;
  }

  /** One run's predictions: the outcome of each task, the response and the gold target. */
  public record Answered(
      BehaviorOutcome outcome, String source, String response, GoldTarget gold) {}

  /** The run ids to score: {@code latest} stands for the latest behaviour answer run. */
  public List<String> resolve(List<String> wanted, String key) {
    if (!run.warehouse().exists(PREDICTIONS)) {
      throw new IllegalArgumentException(
          key
              + ": got "
              + wanted
              + " but no behavior_predictions, expected answer --mode behavior first");
    }
    List<String> present =
        run.warehouse()
            .read(PREDICTIONS)
            .select("run_id")
            .distinct()
            .orderBy("run_id")
            .as(Encoders.STRING())
            .collectAsList();
    List<String> ids = new ArrayList<>();
    for (String id : wanted) {
      if (!"latest".equals(id)) {
        if (!present.contains(id)) {
          throw new IllegalArgumentException(
              key + ": got " + id + ", expected a behavior_predictions run, one of " + present);
        }
        ids.add(id);
        continue;
      }
      List<Row> latest =
          run.warehouse()
              .read("runs")
              .filter(
                  col("job")
                      .equalTo(ANSWER_JOB)
                      .and(col("status").equalTo("succeeded"))
                      .and(col("run_id").isin(present.toArray())))
              .orderBy(col("started_at").desc())
              .limit(1)
              .collectAsList();
      if (latest.isEmpty()) {
        throw new IllegalArgumentException(
            key + ": got latest, expected a succeeded answer --mode behavior run in runs first");
      }
      ids.add(latest.get(0).<String>getAs("run_id"));
    }
    return ids;
  }

  /** Per run: (run_id, model, classified_by), the provenance every behavior_scores row carries. */
  public Map<String, Row> heads(List<String> runIds) {
    Map<String, Row> heads = new LinkedHashMap<>();
    for (Row head :
        run.warehouse()
            .read(PREDICTIONS)
            .filter(col("run_id").isin(runIds.toArray()))
            .groupBy("run_id")
            .agg(
                first("model").as("model"),
                concat_ws(",", array_sort(collect_set("classified_by"))).as("classified_by"))
            .collectAsList()) {
      heads.put(head.getString(0), head);
    }
    return heads;
  }

  /** Each run's answered tasks, with gold targets from the tasks tables. */
  public Map<String, List<Answered>> answered(Collection<String> runIds) {
    Dataset<Row> predictions =
        run.warehouse().read(PREDICTIONS).filter(col("run_id").isin(runIds.toArray()));
    Dataset<Row> gold = goldTargets();
    List<Row> rows =
        predictions
            .join(gold, "task_id")
            .select(
                "run_id",
                "task_id",
                "category",
                "gold_behavior",
                "predicted_behavior",
                "content_correct",
                "source",
                "response",
                "gold_target",
                "model",
                "classified_by")
            .orderBy("run_id", "task_id")
            .collectAsList();
    Map<String, List<Answered>> byRun = new LinkedHashMap<>();
    for (Row row : rows) {
      byRun
          .computeIfAbsent(row.getString(0), k -> new ArrayList<>())
          .add(
              new Answered(
                  new BehaviorOutcome(
                      row.getString(1),
                      row.getString(2),
                      BehaviorType.fromName(row.getString(3)),
                      BehaviorType.fromName(row.getString(4)),
                      row.isNullAt(5) ? null : row.getBoolean(5)),
                  row.getString(6),
                  row.getString(7),
                  GoldTarget.fromJson(row.getString(8))));
    }
    return byRun;
  }

  /** task_id and gold_target of every task, from behavior_tasks (Hard tasks are among them). */
  private Dataset<Row> goldTargets() {
    if (!run.warehouse().exists("behavior_tasks")) {
      throw new IllegalArgumentException(
          "behavior_tasks: no such table, expected build-behavior-tasks before scoring behaviour");
    }
    return run.warehouse().read("behavior_tasks").select("task_id", "gold_target");
  }

  /** The tasks of behavior_tasks_hard; empty when it does not exist. */
  public Set<String> hardTasks() {
    if (!run.warehouse().exists("behavior_tasks_hard")) {
      return Set.of();
    }
    return new TreeSet<>(
        run.warehouse()
            .read("behavior_tasks_hard")
            .select("task_id")
            .as(Encoders.STRING())
            .collectAsList());
  }

  /**
   * The metric rows of one run: over all its tasks (and MEDEC's on the MEDEC-derived ones), and,
   * when {@code hard} is not empty, the macro-F1s over the Hard tasks it answered.
   */
  public List<Row> rows(
      String runId,
      List<Answered> answered,
      Set<String> hard,
      String model,
      String classifiedBy,
      String scoreRunId) {
    List<Row> rows = new ArrayList<>();
    List<BehaviorOutcome> outcomes = answered.stream().map(Answered::outcome).toList();
    BehaviorMetrics.Result all = BehaviorMetrics.compute(outcomes);
    for (Metric metric : all.metrics()) {
      addDefined(
          rows, runId, metric.subset(), metric, outcomes.size(), model, classifiedBy, scoreRunId);
    }
    all.confusion()
        .forEach(
            (gold, byPredicted) ->
                byPredicted.forEach(
                    (predicted, count) ->
                        rows.add(
                            row(
                                runId,
                                "gold:" + gold + ">predicted:" + predicted,
                                "confusion_count",
                                count,
                                count,
                                model,
                                classifiedBy,
                                scoreRunId))));
    rows.addAll(medec(runId, answered, model, classifiedBy, scoreRunId));
    if (!hard.isEmpty()) {
      List<BehaviorOutcome> onHard =
          outcomes.stream().filter(o -> hard.contains(o.taskId())).toList();
      if (!onHard.isEmpty()) {
        rows.addAll(hardRows(runId, onHard, model, classifiedBy, scoreRunId));
      }
    }
    return rows;
  }

  /** The macro-F1s (over types and over categories) of {@code outcomes}, subsets as computed. */
  public List<Row> macroF1Rows(
      String runId,
      List<BehaviorOutcome> outcomes,
      String prefix,
      String model,
      String classifiedBy,
      String scoreRunId) {
    List<Row> rows = new ArrayList<>();
    for (Metric metric : BehaviorMetrics.compute(outcomes).metrics()) {
      if (metric.name().equals(MACRO_F1)) {
        addDefined(
            rows,
            runId,
            prefix + metric.subset(),
            metric,
            outcomes.size(),
            model,
            classifiedBy,
            scoreRunId);
      }
    }
    return rows;
  }

  /**
   * macro-F1 over types and over categories on the Hard tasks: subsets hard/types, hard/categories.
   */
  public List<Row> hardRows(
      String runId,
      List<BehaviorOutcome> onHard,
      String model,
      String classifiedBy,
      String scoreRunId) {
    return macroF1Rows(runId, onHard, HARD + "/", model, classifiedBy, scoreRunId);
  }

  /**
   * A metric's row, unless its value is undefined (the precision of a label never predicted): an
   * undefined value is left out rather than stored as a number. A macro-F1 counts the tasks it
   * averages over, not its labels.
   */
  private static void addDefined(
      List<Row> rows,
      String runId,
      String subset,
      Metric metric,
      long tasks,
      String model,
      String classifiedBy,
      String scoreRunId) {
    if (Double.isNaN(metric.value())) {
      return;
    }
    long n = metric.name().equals(MACRO_F1) ? tasks : metric.n();
    rows.add(row(runId, subset, metric.name(), metric.value(), n, model, classifiedBy, scoreRunId));
  }

  /** MEDEC's metrics over the run's MEDEC-derived tasks, as subset {@code medec}. */
  private List<Row> medec(
      String runId, List<Answered> answered, String model, String classifiedBy, String scoreRunId) {
    List<MedecReference> references = new ArrayList<>();
    Map<String, MedecPrediction> predictions = new HashMap<>();
    for (Answered a : answered) {
      if (!"medec".equals(a.source())) {
        continue;
      }
      references.add(medecReference(a.outcome().taskId(), a.gold()));
      predictions.put(a.outcome().taskId(), MedecResponseParser.parse(a.response()));
    }
    if (references.isEmpty()) {
      return List.of();
    }
    List<Row> rows = new ArrayList<>();
    for (Metric metric : MedecMetrics.compute(references, predictions).metrics()) {
      if (metric.n() == 0) {
        continue; // ROUGE over no scored pairs is undefined, not 0
      }
      rows.add(
          row(
              runId,
              "medec",
              "medec_" + metric.name(),
              metric.value(),
              metric.n(),
              model,
              classifiedBy,
              scoreRunId));
    }
    return rows;
  }

  /**
   * MEDEC's ground truth of a MEDEC-derived task: an error task's sentence id and correction, or a
   * correct text (flag 0, sentence -1, no correction).
   */
  static MedecReference medecReference(String taskId, GoldTarget gold) {
    if (GoldTarget.ERROR.equals(gold.kind())) {
      return new MedecReference(taskId, 1, gold.sentenceId(), gold.corrected());
    }
    return new MedecReference(taskId, 0, -1, null);
  }

  private static Row row(
      String runId,
      String subset,
      String metric,
      double value,
      long n,
      String model,
      String classifiedBy,
      String scoreRunId) {
    return RowFactory.create(runId, subset, metric, value, n, model, classifiedBy, scoreRunId);
  }

  /** Replaces the rows of the runs scored (per run and subset family) in behavior_scores. */
  public WriteResult write(List<Row> rows) {
    Contract contract = Contracts.load("behavior_scores");
    if (rows.isEmpty()) {
      return WriteResult.unchanged("behavior_scores");
    }
    return run.warehouse().upsert(contract, run.spark().createDataFrame(rows, contract.schema()));
  }
}
