package dev.infuse.jobs.behavior;

import dev.infuse.jobs.spark.SparkRows;
import dev.infuse.udfs.behavior.BehaviorTask;
import dev.infuse.udfs.behavior.BehaviorType;
import dev.infuse.udfs.behavior.GoldTarget;
import dev.infuse.udfs.behavior.Turn;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import scala.collection.JavaConverters;

/**
 * {@link BehaviorTask} to and from rows of {@code behavior_tasks}, in the contract's column order:
 * the one place that knows how a task is laid out in the table.
 */
final class TaskRows {
  private TaskRows() {}

  /** The contract's columns; {@code behavior_tasks_hard} starts with the same ones. */
  static final List<String> COLUMNS =
      List.of(
          "task_id",
          "category",
          "type",
          "source",
          "source_record_id",
          "context",
          "query",
          "gold_behavior",
          "gold_target",
          "construction",
          "perturbation_id",
          "perturbation_version",
          "seed",
          "taxonomy",
          "run_id");

  static Row toRow(BehaviorTask task, String taxonomy, String runId) {
    List<Row> turns = new ArrayList<>();
    for (Turn turn : task.context()) {
      turns.add(RowFactory.create(turn.speaker(), turn.text()));
    }
    return RowFactory.create(
        task.taskId(),
        task.category(),
        task.type().id(),
        task.source(),
        task.sourceRecordId(),
        SparkRows.seq(turns),
        task.query(),
        task.goldBehavior().id(),
        task.goldTarget().toJson(),
        SparkRows.map(new TreeMap<>(task.construction())), // sorted: the same JSON in every JVM
        task.perturbationId(),
        task.perturbationVersion(),
        task.seed(),
        taxonomy,
        runId);
  }

  /** A row of behavior_tasks (or behavior_tasks_hard), read by column name. */
  static BehaviorTask fromRow(Row row) {
    List<Turn> context = new ArrayList<>();
    for (Row turn : row.<Row>getList(row.fieldIndex("context"))) {
      context.add(new Turn(turn.getString(0), turn.getString(1)));
    }
    scala.collection.Map<String, String> construction = row.getMap(row.fieldIndex("construction"));
    Map<String, String> constructionMap = JavaConverters.mapAsJavaMap(construction);
    int versionIndex = row.fieldIndex("perturbation_version");
    return new BehaviorTask(
        row.getAs("task_id"),
        row.getAs("category"),
        BehaviorType.fromName(row.getAs("type")),
        row.getAs("source"),
        row.getAs("source_record_id"),
        context,
        row.getAs("query"),
        BehaviorType.fromName(row.getAs("gold_behavior")),
        GoldTarget.fromJson(row.getAs("gold_target")),
        constructionMap,
        row.getAs("perturbation_id"),
        row.isNullAt(versionIndex) ? null : row.getInt(versionIndex),
        row.<Long>getAs("seed"));
  }
}
