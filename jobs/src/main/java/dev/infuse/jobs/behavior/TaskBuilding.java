package dev.infuse.jobs.behavior;

import dev.infuse.udfs.behavior.BehaviorTask;
import dev.infuse.udfs.behavior.tasks.TaskBuilder;
import dev.infuse.udfs.behavior.tasks.Taxonomy;
import dev.infuse.udfs.ingest.BadRecordException;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import scala.collection.JavaConverters;

/**
 * Builds the tasks of one partition of source records on an executor: each record becomes its
 * tasks, or one rejected row saying why it could not (the record kept whole, for quarantine). The
 * taxonomy travels as its YAML text and is parsed once per partition.
 *
 * <p>A sound record no category draws a task from gets a row with only {@code no_task} set.
 *
 * <p>Input rows: {@code (source, record_id, kind, title, text, options, gold, gold_index, meta)},
 * kind {@code document} or {@code question}.
 */
final class TaskBuilding implements FlatMapFunction<Iterator<Row>, Row>, Serializable {
  private static final long serialVersionUID = 1L;

  /** The behavior_tasks columns (nullable, as a rejected row has none), then the rejection. */
  static final StructType OUTPUT = output();

  private final String taxonomyYaml;
  private final String taxonomyOrigin;
  private final long seed;
  private final boolean conversation;
  private final String runId;

  TaskBuilding(
      String taxonomyYaml, String taxonomyOrigin, long seed, boolean conversation, String runId) {
    this.taxonomyYaml = taxonomyYaml;
    this.taxonomyOrigin = taxonomyOrigin;
    this.seed = seed;
    this.conversation = conversation;
    this.runId = runId;
  }

  private static StructType output() {
    List<StructField> fields = new ArrayList<>();
    for (StructField field :
        dev.infuse.jobs.contract.Contracts.load("behavior_tasks").schema().fields()) {
      fields.add(DataTypes.createStructField(field.name(), field.dataType(), true));
    }
    fields.add(DataTypes.createStructField("reject_source", DataTypes.StringType, true));
    fields.add(DataTypes.createStructField("reject_record", DataTypes.StringType, true));
    fields.add(DataTypes.createStructField("reject_payload", DataTypes.StringType, true));
    fields.add(DataTypes.createStructField("reject", DataTypes.StringType, true));
    fields.add(DataTypes.createStructField("no_task", DataTypes.StringType, true));
    return DataTypes.createStructType(fields);
  }

  @Override
  public Iterator<Row> call(Iterator<Row> records) {
    Taxonomy taxonomy = Taxonomy.parse(taxonomyYaml, taxonomyOrigin);
    String taxonomyName = taxonomy.id() + "@" + taxonomy.version();
    TaskBuilder builder = new TaskBuilder(taxonomy, seed, conversation);
    List<Row> out = new ArrayList<>();
    while (records.hasNext()) {
      Row record = records.next();
      String source = record.getString(0);
      String recordId = record.getString(1);
      try {
        List<BehaviorTask> tasks = build(builder, record);
        if (tasks.isEmpty()) {
          // A sound record that no category draws a task from (an ACI-BENCH note with too few
          // dated events to order): counted and reported, not a bad record.
          Object[] values = new Object[OUTPUT.size()];
          values[OUTPUT.size() - 5] = source;
          values[OUTPUT.size() - 4] = recordId;
          values[OUTPUT.size() - 1] = "no category of " + taxonomyName + " draws a task from it";
          out.add(RowFactory.create(values));
        }
        for (BehaviorTask task : tasks) {
          Row row = TaskRows.toRow(task, taxonomyName, runId);
          Object[] values = new Object[OUTPUT.size()];
          for (int i = 0; i < row.size(); i++) {
            values[i] = row.get(i);
          }
          out.add(RowFactory.create(values));
        }
      } catch (BadRecordException | IllegalArgumentException e) {
        out.add(
            rejected(source, recordId, record, source + " " + recordId + ": " + e.getMessage()));
      }
    }
    return out.iterator();
  }

  private static List<BehaviorTask> build(TaskBuilder builder, Row record) {
    String source = record.getString(0);
    String recordId = record.getString(1);
    Map<String, String> meta =
        record.isNullAt(8) ? Map.of() : JavaConverters.mapAsJavaMap(record.getMap(8));
    if ("question".equals(record.getString(2))) {
      List<String> options = record.isNullAt(5) ? null : record.getList(5);
      Integer goldIndex = record.isNullAt(7) ? null : record.getInt(7);
      return builder.fromQuestion(
          source, recordId, record.getString(4), options, record.getString(6), goldIndex, meta);
    }
    return builder.fromDocument(source, recordId, record.getString(3), record.getString(4), meta);
  }

  private static Row rejected(String source, String recordId, Row record, String reason) {
    Object[] values = new Object[OUTPUT.size()];
    int base = OUTPUT.size() - 5;
    values[base] = source;
    values[base + 1] = recordId;
    values[base + 2] = payload(record);
    values[base + 3] = reason;
    return RowFactory.create(values);
  }

  /** The record as JSON, so that quarantine keeps it whole. */
  private static String payload(Row record) {
    return record.json();
  }
}
