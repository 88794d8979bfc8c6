package dev.infuse.jobs.answer;

import dev.infuse.udfs.answer.AnswerInput;
import dev.infuse.udfs.answer.AnswerParser;
import dev.infuse.udfs.answer.AnswerTypes;
import dev.infuse.udfs.answer.PromptFormat;
import dev.infuse.udfs.lm.CausalLm;
import dev.infuse.udfs.lm.LogLikelihoodScorer;
import dev.infuse.udfs.lm.MultipleChoiceScore;
import dev.infuse.udfs.model.ExecutorModels;
import dev.infuse.udfs.model.ModelSpec;
import org.apache.spark.sql.Row;

/**
 * Loglikelihood answering on one partition, the lm-evaluation-harness way: every option's text is
 * scored after the format's context by the model (loaded once per executor JVM), and the answer is
 * the option with the highest log-likelihood ({@code acc}). The log-likelihoods are stored in
 * option order, so {@code score} computes {@code acc_norm} from them and the option lengths.
 */
final class LoglikelihoodAnswers extends RowAnswers<LoglikelihoodAnswers.Scoring> {
  private static final long serialVersionUID = 1L;

  private final ModelSpec<CausalLm> spec;
  private final PromptFormat format;
  private final PredictionRows rows;
  private final int batchRows;
  private final Integer bosTokenId;

  /**
   * @param bosTokenId the BOS before every context (answer.add_bos, resolved on the driver); null
   *     for none
   */
  LoglikelihoodAnswers(
      ModelSpec<CausalLm> spec,
      PromptFormat format,
      PredictionRows rows,
      int batchRows,
      Integer bosTokenId) {
    this.spec = spec;
    this.format = format;
    this.rows = rows;
    this.batchRows = batchRows;
    this.bosTokenId = bosTokenId;
  }

  /** The executor's model and a scorer over it. */
  record Scoring(CausalLm model, LogLikelihoodScorer scorer) {}

  /** The executor's model, scored in batches of this run's size with its BOS. */
  @Override
  Scoring open() {
    CausalLm model = ExecutorModels.get(spec);
    return new Scoring(model, new LogLikelihoodScorer(model, batchRows, bosTokenId));
  }

  @Override
  Row answer(Scoring scoring, Row row) {
    AnswerInput input = AnswerInputs.of(row, true);
    if (!input.hasOptions()) {
      return rows.reject(
          input.questionId(),
          input.benchmark(),
          input.question(),
          "loglikelihood mode needs options,"
              + " but question "
              + input.questionId()
              + " is "
              + input.answerType()
              + "; use answer.mode generate");
    }
    String context = format.loglikelihoodContext(input);
    try {
      MultipleChoiceScore score;
      // One executor model serves every task of the JVM; its forward pass is not documented as
      // thread-safe.
      synchronized (scoring.model()) {
        score = scoring.scorer().multipleChoice(context, format.loglikelihoodChoices(input));
      }
      double[] scores = score.choices().stream().mapToDouble(c -> c.logLikelihood()).toArray();
      String parsed = choice(input, score.acc());
      String raw = "acc " + parsed + ", acc_norm " + choice(input, score.accNorm());
      return rows.prediction(
          input,
          AnswerInputs.chunkIds(row),
          format.loglikelihoodTag(),
          raw,
          parsed,
          AnswerParser.correct(input.answerType(), parsed, AnswerInputs.gold(row)),
          scores,
          null);
    } catch (RuntimeException e) {
      return rows.reject(
          input.questionId(),
          input.benchmark(),
          context,
          "loglikelihood scoring failed: " + e.getMessage());
    }
  }

  /** The answer an option index stands for: its label for label questions, else its letter. */
  static String choice(AnswerInput input, int index) {
    return AnswerTypes.LABEL.equals(input.answerType())
        ? input.options().get(index)
        : AnswerTypes.letter(index);
  }
}
