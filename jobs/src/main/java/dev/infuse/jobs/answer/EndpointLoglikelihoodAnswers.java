package dev.infuse.jobs.answer;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.infuse.udfs.answer.AnswerInput;
import dev.infuse.udfs.answer.AnswerParser;
import dev.infuse.udfs.answer.PromptFormat;
import dev.infuse.udfs.llm.ChatRequest;
import dev.infuse.udfs.llm.CompletionsLoglikelihood;
import dev.infuse.udfs.llm.LoglikelihoodResult;
import dev.infuse.udfs.llm.RequestKeys;
import dev.infuse.udfs.lm.LogLikelihoodEncoder;
import dev.infuse.udfs.lm.LogLikelihoodScorer;
import dev.infuse.udfs.lm.MultipleChoiceScore;
import dev.infuse.udfs.text.TextTokenizer;
import dev.infuse.udfs.text.Tokenizers;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * Loglikelihood mode for a trained model behind an OpenAI-compatible endpoint: each option of a
 * question becomes one completions request with echoed prompt log-probabilities (keyed, so {@code
 * llm_calls} caches it and the LLM layer retries, budgets and resumes it as any call), and each
 * question's option results become one prediction with the same {@code acc}, {@code acc_norm} and
 * {@code option_scores} the in-JVM path gives ({@link LoglikelihoodAnswers}).
 *
 * <p>The served model's tokenizer.json travels as a broadcast of its bytes, built once per executor
 * JVM ({@link Tokenizers#fromBytes}); the closure carries names and small settings only.
 */
final class EndpointLoglikelihoodAnswers implements Serializable {
  private static final long serialVersionUID = 1L;
  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * One option's request (the {@code LlmCallRunner} columns with the question and option), or a
   * question that could not be asked ({@code reason} set, {@code payload} what it was).
   */
  static final StructType REQUESTS =
      new StructType()
          .add("question_id", DataTypes.StringType, false)
          .add("option", DataTypes.IntegerType, true)
          .add("call_key", DataTypes.StringType, true)
          .add("chat_request", DataTypes.StringType, true)
          .add("canonical_request", DataTypes.StringType, true)
          .add("payload", DataTypes.StringType, true)
          .add("reason", DataTypes.StringType, true);

  private final PromptFormat format;
  private final String backend;
  private final String model;
  private final Integer bosTokenId;
  private final boolean tokenizedRequests;
  private final Integer maxLength;
  private final Broadcast<byte[]> tokenizerJson;
  private final PredictionRows rows;

  EndpointLoglikelihoodAnswers(
      PromptFormat format,
      String backend,
      EndpointModel endpoint,
      Integer bosTokenId,
      Broadcast<byte[]> tokenizerJson,
      PredictionRows rows) {
    this.format = format;
    this.backend = backend;
    this.model = endpoint.model().strip();
    this.bosTokenId = bosTokenId;
    this.tokenizedRequests = endpoint.tokenized();
    this.maxLength = endpoint.maxLength();
    this.tokenizerJson = tokenizerJson;
    this.rows = rows;
  }

  /** One partition of question rows to request rows: one per option, or the reason none. */
  Iterator<Row> requests(Iterator<Row> questions) {
    TextTokenizer tokenizer = Tokenizers.fromBytes(tokenizerJson.value());
    CompletionsLoglikelihood completions =
        new CompletionsLoglikelihood(
            model,
            new LogLikelihoodEncoder(text -> widen(tokenizer.ids(text)), bosTokenId, null),
            tokenizedRequests,
            maxLength);
    List<Row> out = new ArrayList<>();
    while (questions.hasNext()) {
      Row row = questions.next();
      AnswerInput input = AnswerInputs.of(row, true);
      if (!input.hasOptions()) {
        out.add(
            unasked(
                input.questionId(),
                input.question(),
                "loglikelihood mode needs options, but question "
                    + input.questionId()
                    + " is "
                    + input.answerType()
                    + "; use answer.mode generate"));
        continue;
      }
      String context = format.loglikelihoodContext(input);
      List<ChatRequest> requests;
      try {
        requests =
            completions.multipleChoice(
                context,
                format.loglikelihoodChoices(input),
                LogLikelihoodScorer.DEFAULT_DELIMITER,
                Map.of("task", "answer-loglikelihood", "question_id", input.questionId()));
      } catch (IllegalArgumentException e) {
        out.add(
            unasked(
                input.questionId(),
                context,
                "loglikelihood request cannot be built: " + e.getMessage()));
        continue;
      }
      for (int option = 0; option < requests.size(); option++) {
        ChatRequest request = requests.get(option);
        try {
          out.add(
              RowFactory.create(
                  input.questionId(),
                  option,
                  RequestKeys.key(backend, request),
                  JSON.writeValueAsString(request),
                  RequestKeys.canonicalJson(backend, request),
                  null,
                  null));
        } catch (JsonProcessingException e) {
          throw new UncheckedIOException(e);
        }
      }
    }
    return out.iterator();
  }

  /**
   * A question row joined with its options' calls ({@code calls}: option, call_key, status,
   * response_text, error, in option order) to a prediction, or to a rejection when a call failed,
   * was deferred by the budget or answered something unreadable.
   */
  Row parse(Row answered) {
    AnswerInput input = AnswerInputs.of(answered, true);
    List<String> choices = format.loglikelihoodChoices(input);
    List<Row> calls = answered.getList(answered.fieldIndex("calls"));
    String context = format.loglikelihoodContext(input);
    if (calls.size() != choices.size()) {
      return rows.reject(
          input.questionId(),
          input.benchmark(),
          context,
          "got " + calls.size() + " loglikelihood call(s) for " + choices.size() + " options");
    }
    List<LoglikelihoodResult> results = new ArrayList<>(calls.size());
    for (Row call : calls) {
      int option = call.getAs("option");
      String key = call.getAs("call_key");
      String status = call.getAs("status");
      if (status == null) {
        return rows.reject(
            input.questionId(),
            input.benchmark(),
            context,
            "not asked: llm.max_total_tokens was reached first; a rerun asks it");
      }
      if (!"succeeded".equals(status)) {
        return rows.reject(
            input.questionId(),
            input.benchmark(),
            context,
            "llm call "
                + key
                + " (option "
                + LoglikelihoodAnswers.choice(input, option)
                + ") failed (retried on the next run): "
                + call.getAs("error"));
      }
      try {
        results.add(LoglikelihoodResult.fromJson(call.getAs("response_text")));
      } catch (IllegalArgumentException e) {
        return rows.reject(
            input.questionId(),
            input.benchmark(),
            context,
            "llm call " + key + " answered no log-likelihood: " + e.getMessage());
      }
    }
    MultipleChoiceScore score = CompletionsLoglikelihood.score(results, choices);
    double[] scores = results.stream().mapToDouble(LoglikelihoodResult::logprob).toArray();
    String parsed = LoglikelihoodAnswers.choice(input, score.acc());
    return rows.prediction(
        input,
        AnswerInputs.chunkIds(answered),
        format.loglikelihoodTag(),
        "acc " + parsed + ", acc_norm " + LoglikelihoodAnswers.choice(input, score.accNorm()),
        parsed,
        AnswerParser.correct(input.answerType(), parsed, AnswerInputs.gold(answered)),
        scores,
        null);
  }

  private static Row unasked(String questionId, String payload, String reason) {
    return RowFactory.create(questionId, null, null, null, null, payload, reason);
  }

  private static long[] widen(int[] ids) {
    long[] out = new long[ids.length];
    for (int i = 0; i < ids.length; i++) {
      out[i] = ids[i];
    }
    return out;
  }
}
