package dev.infuse.jobs.answer;

import dev.infuse.jobs.contract.Contract;
import dev.infuse.jobs.contract.Contracts;
import dev.infuse.udfs.answer.AnswerInput;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * Builds the rows every answer mode emits: a prediction (the {@code predictions} columns) or a
 * rejection bound for quarantine ({@code payload}, {@code reason} set). Carries the run-level
 * values every prediction repeats, so the executors' closures stay small.
 */
final class PredictionRows implements Serializable {
  private static final long serialVersionUID = 1L;

  /**
   * The contract's columns, all nullable (rejections leave them empty), then payload and reason.
   */
  static final StructType SCHEMA = schema();

  private final String runId;
  private final String setting;
  private final String backend;
  private final String model;
  private final String mode;
  private final String retriever;
  private final TrainedOn trainedOn;
  private final String configHash;

  PredictionRows(
      String runId,
      String setting,
      String backend,
      String model,
      String mode,
      String retriever,
      TrainedOn trainedOn,
      String configHash) {
    this.runId = runId;
    this.setting = setting;
    this.backend = backend;
    this.model = model;
    this.mode = mode;
    this.retriever = retriever;
    this.trainedOn = trainedOn;
    this.configHash = configHash;
  }

  /**
   * One prediction; {@code chunkIds} null in closed book, {@code scores} null when the mode has
   * none.
   */
  Row prediction(
      AnswerInput input,
      List<String> chunkIds,
      String promptVersion,
      String rawOutput,
      String parsed,
      Boolean correct,
      double[] scores,
      String callKey) {
    List<Double> boxed = null;
    if (scores != null) {
      boxed = new ArrayList<>(scores.length);
      for (double score : scores) {
        boxed.add(score);
      }
    }
    return RowFactory.create(
        runId,
        input.questionId(),
        input.benchmark(),
        setting,
        backend,
        model,
        mode,
        promptVersion,
        rawOutput,
        parsed,
        correct,
        chunkIds == null ? null : retriever,
        chunkIds == null ? null : chunkIds.toArray(),
        boxed == null ? null : boxed.toArray(),
        callKey,
        trainedOn.syntheticTokens(),
        trainedOn.unique(),
        trainedOn.seen(),
        trainedOn.countTokenizer(),
        trainedOn.generator(),
        configHash,
        null, // rag_recipe: the answer job sets it for the whole run
        null,
        null);
  }

  /** A question that cannot be answered, with what it was and why. */
  Row reject(String questionId, String benchmark, String payload, String reason) {
    return RowFactory.create(
        runId,
        questionId,
        benchmark,
        setting,
        backend,
        model,
        mode,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        configHash,
        null,
        payload,
        reason);
  }

  /**
   * Questions that could not be asked, {@code (question_id, payload, reason)}, as rejection rows of
   * {@link #SCHEMA}.
   */
  Dataset<Row> rejections(SparkSession spark, Dataset<Row> unasked, String benchmark) {
    return spark.createDataFrame(
        unasked
            .javaRDD()
            .map(
                r ->
                    reject(
                        r.getAs("question_id"), benchmark, r.getAs("payload"), r.getAs("reason"))),
        SCHEMA);
  }

  private static StructType schema() {
    Contract contract = Contracts.load(AnswerJob.TABLE);
    StructType schema = new StructType();
    for (StructField field : contract.schema().fields()) {
      schema = schema.add(field.name(), field.dataType(), true);
    }
    return schema
        .add("payload", DataTypes.StringType, true)
        .add("reason", DataTypes.StringType, true);
  }
}
