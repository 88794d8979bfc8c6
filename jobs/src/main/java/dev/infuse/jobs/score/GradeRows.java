package dev.infuse.jobs.score;

import dev.infuse.udfs.answer.PromptFormat;
import dev.infuse.udfs.answer.PromptFormats;
import dev.infuse.udfs.score.MultipleChoiceMetrics;
import dev.infuse.udfs.score.NumericGrader;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.catalyst.expressions.GenericRowWithSchema;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * Grades each prediction joined with its question, without any I/O: the answer job's {@code
 * correct} when it set one; for free answers, FinanceBench numeric grading within the tolerance;
 * and {@code acc_norm} recomputed from the stored option log-likelihoods of loglikelihood runs. A
 * free answer that is not a single number comes out as {@link #JUDGE}, for the LLM judge; a
 * prediction that cannot be scored (its question is missing or unlabelled, its option scores do not
 * fit its options) as {@link #REJECTED}, with the reason.
 */
final class GradeRows implements FlatMapFunction<Iterator<Row>, Row> {
  private static final long serialVersionUID = 1L;

  static final String GRADED = "graded";
  static final String JUDGE = "judge";
  static final String REJECTED = "rejected";

  /** Who decided {@code correct}: the answer job, the numeric tolerance, or the LLM judge. */
  static final String BY_ANSWER = "answer";

  static final String BY_NUMERIC = "numeric";
  static final String BY_JUDGE = "judge";

  /** Input columns: predictions joined with questions (question columns null when it has none). */
  static final List<String> INPUT =
      List.of(
          "run_id",
          "question_id",
          "benchmark",
          "setting",
          "model",
          "answer_mode",
          "prompt_version",
          "raw_output",
          "parsed_answer",
          "correct",
          "option_scores",
          "synthetic_tokens",
          "unique_synthetic_tokens",
          "seen_synthetic_tokens",
          "count_tokenizer",
          "generator",
          "config_hash",
          "question_found",
          "question",
          "options",
          "gold",
          "gold_index",
          "answer_type",
          "subsets");

  /**
   * What predictions say about a trained model's synthetic data, carried to scores; absent from
   * predictions written before they existed, where they read as null.
   */
  static final List<String> TRAINED_ON =
      List.of("unique_synthetic_tokens", "seen_synthetic_tokens", "count_tokenizer", "generator");

  static final StructType SCHEMA =
      new StructType()
          .add("run_id", DataTypes.StringType, false)
          .add("question_id", DataTypes.StringType, false)
          .add("benchmark", DataTypes.StringType, false)
          .add("setting", DataTypes.StringType, false)
          .add("model", DataTypes.StringType, false)
          .add("prompt_version", DataTypes.StringType, false)
          .add("synthetic_tokens", DataTypes.LongType, true)
          .add("unique_synthetic_tokens", DataTypes.LongType, true)
          .add("seen_synthetic_tokens", DataTypes.LongType, true)
          .add("count_tokenizer", DataTypes.StringType, true)
          .add("generator", DataTypes.StringType, true)
          .add("config_hash", DataTypes.StringType, false)
          .add("subsets", DataTypes.createArrayType(DataTypes.StringType, false), false)
          .add("status", DataTypes.StringType, false)
          .add("correct", DataTypes.BooleanType, true)
          .add("acc_norm", DataTypes.BooleanType, true)
          // Whether the answer job extracted an answer (predictions.parsed_answer not null): the
          // attempts of accuracy_attempted and parse_rate.
          .add("parsed", DataTypes.BooleanType, false)
          .add("grader", DataTypes.StringType, true)
          .add("question", DataTypes.StringType, true)
          .add("gold", DataTypes.StringType, true)
          .add("answer", DataTypes.StringType, true)
          .add("reason", DataTypes.StringType, true);

  private final double tolerance;

  GradeRows(double tolerance) {
    this.tolerance = tolerance;
  }

  @Override
  public Iterator<Row> call(Iterator<Row> rows) {
    NumericGrader grader = new NumericGrader(tolerance);
    List<Row> out = new ArrayList<>();
    while (rows.hasNext()) {
      out.add(grade(rows.next(), grader));
    }
    return out.iterator();
  }

  static Row grade(Row p, NumericGrader grader) {
    String answer =
        p.isNullAt(p.fieldIndex("parsed_answer"))
            ? p.<String>getAs("raw_output")
            : p.<String>getAs("parsed_answer");
    if (!p.<Boolean>getAs("question_found")) {
      return row(
          p,
          REJECTED,
          null,
          null,
          null,
          answer,
          "question_id: "
              + p.getAs("question_id")
              + " is not in questions, expected the question the prediction answers");
    }
    String gold = p.getAs("gold");
    if (gold == null) {
      return row(
          p,
          REJECTED,
          null,
          null,
          null,
          answer,
          "gold: null (an unlabelled split), expected a gold answer to score against");
    }
    Boolean accNorm = null;
    if ("loglikelihood".equals(p.getAs("answer_mode"))
        && !p.isNullAt(p.fieldIndex("option_scores"))
        && !p.isNullAt(p.fieldIndex("options"))
        && !p.isNullAt(p.fieldIndex("gold_index"))) {
      List<Double> scores = p.getList(p.fieldIndex("option_scores"));
      List<String> options = p.getList(p.fieldIndex("options"));
      if (scores.size() != options.size() || scores.stream().anyMatch(java.util.Objects::isNull)) {
        return row(
            p,
            REJECTED,
            null,
            null,
            null,
            answer,
            "option_scores: got "
                + scores.size()
                + " value(s) for "
                + options.size()
                + " options, expected one log-likelihood per option");
      }
      double[] lls = scores.stream().mapToDouble(Double::doubleValue).toArray();
      List<String> scored = scoredChoices(p.getAs("benchmark"), options);
      accNorm = MultipleChoiceMetrics.accNorm(lls, scored) == p.<Integer>getAs("gold_index");
    }
    if (!p.isNullAt(p.fieldIndex("correct"))) {
      return row(p, GRADED, p.getAs("correct"), accNorm, BY_ANSWER, answer, null);
    }
    String type = p.getAs("answer_type");
    if (!"free".equals(type) && !"numeric".equals(type)) {
      // The agreed predictions contract: only free answers are left for score to grade.
      return row(
          p,
          REJECTED,
          null,
          null,
          null,
          answer,
          "correct: null for answer_type "
              + type
              + ", expected the answer job to grade mcq and label answers (null only for free)");
    }
    if (answer == null || answer.isBlank()) {
      // Unparseable and empty answers count as wrong, as the answer job counts them for other
      // types.
      return row(p, GRADED, false, accNorm, BY_NUMERIC, answer, null);
    }
    return switch (grader.grade(gold, answer)) {
      case CORRECT -> row(p, GRADED, true, accNorm, BY_NUMERIC, answer, null);
      case INCORRECT -> row(p, GRADED, false, accNorm, BY_NUMERIC, answer, null);
      // A numeric question (GSM8K) with no single number in the answer is wrong; a free one goes to
      // the judge.
      case NOT_NUMERIC ->
          "numeric".equals(type)
              ? row(p, GRADED, false, accNorm, BY_NUMERIC, answer, null)
              : row(p, JUDGE, null, accNorm, null, answer, null);
    };
  }

  /**
   * The texts the answer job scored, which acc_norm divides by: the options as its prompt format
   * renders them (for NLI, True / Neither / False rather than the stored labels).
   */
  static List<String> scoredChoices(String benchmark, List<String> options) {
    try {
      PromptFormat format = PromptFormats.forBenchmark(benchmark);
      return format.supportsLoglikelihood() ? format.loglikelihoodChoices(options) : options;
    } catch (IllegalArgumentException unknownBenchmark) {
      return options;
    }
  }

  private static Row row(
      Row p,
      String status,
      Boolean correct,
      Boolean accNorm,
      String grader,
      String answer,
      String reason) {
    Object subsets =
        p.isNullAt(p.fieldIndex("subsets"))
            ? scala.collection.immutable.List.empty()
            : p.get(p.fieldIndex("subsets"));
    // With its schema, so tests (and readers of the RDD) can look fields up by name.
    return new GenericRowWithSchema(
        new Object[] {
          p.getAs("run_id"),
          p.getAs("question_id"),
          p.getAs("benchmark"),
          p.getAs("setting"),
          p.getAs("model"),
          p.getAs("prompt_version"),
          p.getAs("synthetic_tokens"),
          p.getAs("unique_synthetic_tokens"),
          p.getAs("seen_synthetic_tokens"),
          p.getAs("count_tokenizer"),
          p.getAs("generator"),
          p.getAs("config_hash"),
          subsets,
          status,
          correct,
          accNorm,
          !p.isNullAt(p.fieldIndex("parsed_answer")),
          grader,
          p.getAs("question"),
          p.getAs("gold"),
          answer,
          reason
        },
        SCHEMA);
  }
}
