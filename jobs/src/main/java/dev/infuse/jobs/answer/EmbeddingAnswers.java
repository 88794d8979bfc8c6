package dev.infuse.jobs.answer;

import dev.infuse.udfs.answer.AnswerInput;
import dev.infuse.udfs.answer.AnswerParser;
import dev.infuse.udfs.answer.EmbeddingAnswerer;
import dev.infuse.udfs.embed.TextEmbedder;
import dev.infuse.udfs.model.ExecutorModels;
import dev.infuse.udfs.model.ModelSpec;
import java.util.List;
import java.util.Locale;
import org.apache.spark.sql.Row;

/**
 * The model-free answer mode on one partition: the embedder (loaded once per executor JVM) picks
 * the option most similar to the context. The context is the retrieved chunks; in closed book the
 * question itself, since a closed-book reader must not see the article (an NLI question's premise
 * is part of the question, so it is the context there). A free or numeric question without any
 * context gets no answer, counted wrong, rather than an echo of itself.
 */
final class EmbeddingAnswers extends RowAnswers<EmbeddingAnswerer> {
  private static final long serialVersionUID = 1L;

  private final ModelSpec<TextEmbedder> spec;
  private final PredictionRows rows;
  private final boolean documentIsPremise;

  EmbeddingAnswers(ModelSpec<TextEmbedder> spec, PredictionRows rows, boolean documentIsPremise) {
    this.spec = spec;
    this.rows = rows;
    this.documentIsPremise = documentIsPremise;
  }

  /** The executor's embedder, with a cache of the texts this partition embedded. */
  @Override
  EmbeddingAnswerer open() {
    return new EmbeddingAnswerer(ExecutorModels.get(spec));
  }

  @Override
  Row answer(EmbeddingAnswerer answerer, Row row) {
    AnswerInput input = AnswerInputs.of(row, documentIsPremise);
    try {
      return answer(answerer, row, input);
    } catch (RuntimeException e) {
      return rows.reject(
          input.questionId(), input.benchmark(), input.question(), "embedding answer failed: " + e);
    }
  }

  private Row answer(EmbeddingAnswerer answerer, Row row, AnswerInput input) {
    List<String> context;
    String source;
    if (!input.passages().isEmpty()) {
      context = input.passages();
      source = input.passages().size() + " retrieved chunk(s)";
    } else if (documentIsPremise && AnswerInputs.documentText(row) != null) {
      context = List.of(AnswerInputs.documentText(row));
      source = "the premise";
    } else if (input.hasOptions()) {
      context = List.of(input.question());
      source = "the question itself (closed book)";
    } else {
      // A free or numeric answer taken from the question would only echo it: nothing to answer
      // from.
      return rows.prediction(
          input,
          AnswerInputs.chunkIds(row),
          EmbeddingAnswerer.tag(input),
          "embedding (weak, model-free): no context to answer from (closed book, no document)",
          null,
          AnswerParser.correct(input.answerType(), null, AnswerInputs.gold(row)),
          null,
          null);
    }
    EmbeddingAnswerer.Answer answer = answerer.answer(input, context);
    String raw;
    if (answer.scores() != null) {
      int best =
          input.answerType().equals("label")
              ? input.options().indexOf(answer.answer())
              : dev.infuse.udfs.answer.AnswerTypes.index(answer.answer());
      raw =
          String.format(
              Locale.ROOT,
              "embedding (weak, model-free): option %s, cosine %.4f, against %s",
              answer.answer(),
              answer.scores()[best],
              source);
    } else {
      raw =
          answer.evidence() == null
              ? "embedding (weak, model-free): no sentence in " + source
              : "embedding (weak, model-free): closest sentence of "
                  + source
                  + ": "
                  + answer.evidence();
    }
    return rows.prediction(
        input,
        AnswerInputs.chunkIds(row),
        EmbeddingAnswerer.tag(input),
        raw,
        answer.answer(),
        AnswerParser.correct(input.answerType(), answer.answer(), AnswerInputs.gold(row)),
        answer.scores(),
        null);
  }
}
