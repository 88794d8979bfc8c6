package dev.infuse.jobs.answer;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.sql.Row;

/**
 * Several runs' questions answered in one partition: each row's {@code slot} column names the run
 * whose mode answers it, and what the modes open (the model, the embedding cache) is opened once,
 * from the first run's, and shared. {@link AnswerBatch} puts only runs that open the same state
 * together.
 */
final class BatchedAnswers<S> implements FlatMapFunction<Iterator<Row>, Row> {
  private static final long serialVersionUID = 1L;

  /** The column of the input rows that holds the index of the run (into the list) answering it. */
  static final String SLOT = "slot";

  private final List<? extends RowAnswers<S>> runs;

  BatchedAnswers(List<? extends RowAnswers<S>> runs) {
    this.runs = List.copyOf(runs);
  }

  @Override
  public Iterator<Row> call(Iterator<Row> questions) {
    if (!questions.hasNext()) {
      return Collections.emptyIterator();
    }
    S shared = runs.get(0).open();
    List<Row> out = new ArrayList<>();
    while (questions.hasNext()) {
      Row question = questions.next();
      out.add(runs.get(question.<Integer>getAs(SLOT)).answer(shared, question));
    }
    return out.iterator();
  }
}
