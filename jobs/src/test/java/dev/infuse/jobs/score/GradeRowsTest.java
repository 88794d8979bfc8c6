package dev.infuse.jobs.score;

import static org.assertj.core.api.Assertions.assertThat;

import dev.infuse.jobs.spark.SparkRows;
import dev.infuse.udfs.score.NumericGrader;
import java.util.List;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.catalyst.expressions.GenericRowWithSchema;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;

/** The per-prediction grading rules, on hand-built rows: no Spark session needed. */
class GradeRowsTest {
  private static final StructType INPUT =
      new StructType()
          .add("run_id", DataTypes.StringType)
          .add("question_id", DataTypes.StringType)
          .add("benchmark", DataTypes.StringType)
          .add("setting", DataTypes.StringType)
          .add("model", DataTypes.StringType)
          .add("answer_mode", DataTypes.StringType)
          .add("prompt_version", DataTypes.StringType)
          .add("raw_output", DataTypes.StringType)
          .add("parsed_answer", DataTypes.StringType)
          .add("correct", DataTypes.BooleanType)
          .add("option_scores", DataTypes.createArrayType(DataTypes.DoubleType))
          .add("synthetic_tokens", DataTypes.LongType)
          .add("unique_synthetic_tokens", DataTypes.LongType)
          .add("seen_synthetic_tokens", DataTypes.LongType)
          .add("count_tokenizer", DataTypes.StringType)
          .add("generator", DataTypes.StringType)
          .add("config_hash", DataTypes.StringType)
          .add("question_found", DataTypes.BooleanType)
          .add("question", DataTypes.StringType)
          .add("options", DataTypes.createArrayType(DataTypes.StringType))
          .add("gold", DataTypes.StringType)
          .add("gold_index", DataTypes.IntegerType)
          .add("answer_type", DataTypes.StringType)
          .add("subsets", DataTypes.createArrayType(DataTypes.StringType));
  private final NumericGrader grader = new NumericGrader(0.01);

  @Test
  void numericQuestionsAreGradedByToleranceAndANumberlessAnswerIsWrong() {
    Row right =
        GradeRows.grade(
            row("generate", "The answer is 1,200.", null, null, "1200", null, null, "numeric"),
            grader);
    assertThat(right.<String>getAs("status")).isEqualTo(GradeRows.GRADED);
    assertThat(right.<Boolean>getAs("correct")).isTrue();
    Row none =
        GradeRows.grade(
            row("generate", "I do not know.", null, null, "1200", null, null, "numeric"), grader);
    assertThat(none.<Boolean>getAs("correct")).isFalse();
    Row free =
        GradeRows.grade(
            row("generate", "I do not know.", null, null, "Yes.", null, null, "free"), grader);
    assertThat(free.<String>getAs("status")).isEqualTo(GradeRows.JUDGE);
    Row empty =
        GradeRows.grade(row("generate", null, null, null, "Yes.", null, null, "free"), grader);
    assertThat(empty.<Boolean>getAs("correct")).isFalse();
  }

  @Test
  void accNormComesFromTheOptionScoresAndBadOnesAreRejected() {
    List<String> options = List.of("ab", "abcdef");
    // acc picks A (-2 > -3); acc_norm picks B (-3/6 > -2/2).
    Row r =
        GradeRows.grade(
            row("loglikelihood", "A", true, List.of(-2.0, -3.0), "A", 0, options, "mcq"), grader);
    assertThat(r.<Boolean>getAs("correct")).isTrue();
    assertThat(r.<Boolean>getAs("acc_norm")).isFalse();
    Row bad =
        GradeRows.grade(
            row("loglikelihood", "A", true, List.of(-2.0), "A", 0, options, "mcq"), grader);
    assertThat(bad.<String>getAs("status")).isEqualTo(GradeRows.REJECTED);
    assertThat(bad.<String>getAs("reason"))
        .startsWith("option_scores: got 1 value(s) for 2 options");
  }

  @Test
  void ungradedChoiceAnswersAreRejectedAsAContractBreach() {
    Row r =
        GradeRows.grade(row("generate", "B", null, null, "A", 0, List.of("x", "y"), "mcq"), grader);
    assertThat(r.<String>getAs("status")).isEqualTo(GradeRows.REJECTED);
    assertThat(r.<String>getAs("reason")).contains("correct: null for answer_type mcq");
  }

  private static Row row(
      String mode,
      String answer,
      Boolean correct,
      List<Double> scores,
      String gold,
      Integer goldIndex,
      List<String> options,
      String type) {
    return new GenericRowWithSchema(
        new Object[] {
          "r",
          "q",
          "b",
          "rag",
          "m",
          mode,
          "p@1",
          answer,
          answer,
          correct,
          SparkRows.seq(scores),
          null,
          null,
          null,
          null,
          null,
          "h",
          true,
          "Q?",
          SparkRows.seq(options),
          gold,
          goldIndex,
          type,
          SparkRows.seq(List.<String>of())
        },
        INPUT);
  }

  @Test
  void accNormDividesByTheTextsTheAnswerJobScored() {
    // ANLI is scored as True / Neither / False, not as its labels: the lengths differ, and so does
    // acc_norm.
    List<String> labels = List.of("entailment", "neutral", "contradiction");
    assertThat(GradeRows.scoredChoices("anli", labels)).containsExactly("True", "Neither", "False");
    double[] logLikelihoods = {-8.0, -7.5, -9.0};
    assertThat(
            dev.infuse.udfs.score.MultipleChoiceMetrics.accNorm(
                logLikelihoods, GradeRows.scoredChoices("anli", labels)))
        .isEqualTo(1);
    assertThat(dev.infuse.udfs.score.MultipleChoiceMetrics.accNorm(logLikelihoods, labels))
        .isEqualTo(2);
    // Option benchmarks score the options themselves; an unknown benchmark keeps them as they are.
    assertThat(GradeRows.scoredChoices("quality", List.of("a cat", "two dogs")))
        .containsExactly("a cat", "two dogs");
    assertThat(GradeRows.scoredChoices("unknown", labels)).isEqualTo(labels);
  }
}
