package dev.infuse.jobs.answer;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.infuse.jobs.generate.RequestBuilder;
import dev.infuse.udfs.answer.AnswerInput;
import dev.infuse.udfs.answer.AnswerParser;
import dev.infuse.udfs.answer.PromptFormat;
import dev.infuse.udfs.llm.ChatRequest;
import dev.infuse.udfs.llm.GenerationParams;
import dev.infuse.udfs.llm.RequestKeys;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * Generate mode: the chat request for each question (keyed, so {@code llm_calls} caches it and a
 * rerun sends nothing) and the parse of each response into a prediction.
 */
final class GeneratedAnswers implements Serializable {
  private static final long serialVersionUID = 1L;
  private static final ObjectMapper JSON = new ObjectMapper();

  /** The request columns {@code LlmCallRunner} reads, keyed by question. */
  static final StructType REQUESTS =
      new StructType()
          .add("question_id", DataTypes.StringType, false)
          .add("call_key", DataTypes.StringType, false)
          .add("chat_request", DataTypes.StringType, false)
          .add("canonical_request", DataTypes.StringType, false);

  private final PromptFormat format;
  private final FewShotReader reader;
  private final boolean chainOfThought;
  private final String backend;
  private final String model;
  private final int maxTokens;
  private final double temperature;
  private final long runSeed;
  private final PredictionRows rows;

  /**
   * @param reader the few-shot reader that asks instead of {@code format}'s prompt; null for the
   *     format's own
   */
  GeneratedAnswers(
      PromptFormat format,
      FewShotReader reader,
      boolean chainOfThought,
      String backend,
      String model,
      int maxTokens,
      double temperature,
      long runSeed,
      PredictionRows rows) {
    this.format = format;
    this.reader = reader;
    this.chainOfThought = chainOfThought;
    this.backend = backend;
    this.model = model;
    this.maxTokens = maxTokens;
    this.temperature = temperature;
    this.runSeed = runSeed;
    this.rows = rows;
  }

  String promptVersion() {
    return reader != null ? reader.tag() : format.tag(chainOfThought);
  }

  /**
   * The request for one question row. The seed derives from (run seed, question, prompt version),
   * so a rerun asks exactly the same request and is answered from the cache.
   */
  Row request(Row question) {
    AnswerInput input = AnswerInputs.of(question, true);
    long seed = RequestBuilder.seedFor(runSeed, input.questionId(), promptVersion());
    ChatRequest request =
        new ChatRequest(
            model,
            reader != null ? reader.messages(input) : format.messages(input, chainOfThought),
            new GenerationParams(maxTokens, temperature, 1.0, 1, List.of(), seed, false, null),
            Map.of(
                "task",
                "answer",
                "question_id",
                input.questionId(),
                "prompt_version",
                promptVersion()));
    try {
      return RowFactory.create(
          input.questionId(),
          RequestKeys.key(backend, request),
          JSON.writeValueAsString(request),
          RequestKeys.canonicalJson(backend, request));
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * A question row joined with its response ({@code call_key}, {@code status}, {@code
   * response_text}, {@code error}) to a prediction, or to a rejection when the call failed or was
   * deferred by the budget.
   */
  Row parse(Row answered) {
    AnswerInput input = AnswerInputs.of(answered, true);
    String key = answered.getAs("call_key");
    String status = answered.getAs("status");
    if (status == null) {
      return rows.reject(
          input.questionId(),
          input.benchmark(),
          answered.getAs("canonical_request"),
          "not asked: llm.max_total_tokens was reached first; a rerun asks it");
    }
    if (!"succeeded".equals(status)) {
      return rows.reject(
          input.questionId(),
          input.benchmark(),
          answered.getAs("canonical_request"),
          "llm call " + key + " failed (retried on the next run): " + answered.getAs("error"));
    }
    String text = answered.getAs("response_text");
    String parsed = AnswerParser.parse(input.answerType(), text, input.options());
    return rows.prediction(
        input,
        AnswerInputs.chunkIds(answered),
        promptVersion(),
        text,
        parsed,
        AnswerParser.correct(input.answerType(), parsed, AnswerInputs.gold(answered)),
        null,
        key);
  }
}
