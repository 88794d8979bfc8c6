package dev.infuse.jobs.answer;

import dev.infuse.udfs.answer.AnswerInput;
import java.util.List;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * The question rows the answer job feeds its modes, and their conversion to {@link AnswerInput}.
 */
final class AnswerInputs {
  /** One question with its context: what {@code AnswerJob.inputs} selects. */
  static final StructType SCHEMA =
      new StructType()
          .add("question_id", DataTypes.StringType, false)
          // Answers that share a document's context run in one task (AnswerJob.byDocument).
          .add("doc_id", DataTypes.StringType, true)
          .add("benchmark", DataTypes.StringType, false)
          .add("answer_type", DataTypes.StringType, false)
          .add("question", DataTypes.StringType, false)
          .add("options", DataTypes.createArrayType(DataTypes.StringType), true)
          .add("gold", DataTypes.StringType, true)
          .add("title", DataTypes.StringType, true)
          .add("doc_text", DataTypes.StringType, true)
          .add("passages", DataTypes.createArrayType(DataTypes.StringType), true)
          .add("chunk_ids", DataTypes.createArrayType(DataTypes.StringType), true);

  private AnswerInputs() {}

  /**
   * The question as the udfs see it. {@code withDocument} puts the question's document in {@link
   * AnswerInput#documentText} (formats whose task includes it: the ANLI premise).
   */
  static AnswerInput of(Row row, boolean withDocument) {
    return new AnswerInput(
        row.getAs("question_id"),
        row.getAs("benchmark"),
        row.getAs("answer_type"),
        row.getAs("question"),
        list(row, "options"),
        row.getAs("title"),
        withDocument ? row.getAs("doc_text") : null,
        list(row, "passages"));
  }

  static String gold(Row row) {
    return row.getAs("gold");
  }

  static String documentText(Row row) {
    return row.getAs("doc_text");
  }

  /** The chunks in context, in prompt order; null for closed book. */
  static List<String> chunkIds(Row row) {
    int at = row.fieldIndex("chunk_ids");
    return row.isNullAt(at) ? null : row.getList(at);
  }

  private static List<String> list(Row row, String field) {
    int at = row.fieldIndex(field);
    return row.isNullAt(at) ? List.of() : row.getList(at);
  }
}
