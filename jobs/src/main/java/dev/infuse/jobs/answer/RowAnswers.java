package dev.infuse.jobs.answer;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.sql.Row;

/**
 * An answer mode that answers one question row at a time with what it opens once per partition (the
 * executor's model, a scorer, an embedding cache). One run's partition answers through {@link
 * #call}; runs that share the state answer one partition together through {@link BatchedAnswers}.
 *
 * @param <S> what a partition opens once
 */
abstract class RowAnswers<S> implements FlatMapFunction<Iterator<Row>, Row> {
  private static final long serialVersionUID = 1L;

  /** What the partition's rows share; opened on the executor, before the first row. */
  abstract S open();

  /** One question's prediction, or its rejection ({@link PredictionRows#reject}). */
  abstract Row answer(S state, Row question);

  @Override
  public Iterator<Row> call(Iterator<Row> questions) {
    if (!questions.hasNext()) {
      return Collections.emptyIterator();
    }
    S state = open();
    List<Row> out = new ArrayList<>();
    while (questions.hasNext()) {
      out.add(answer(state, questions.next()));
    }
    return out.iterator();
  }
}
