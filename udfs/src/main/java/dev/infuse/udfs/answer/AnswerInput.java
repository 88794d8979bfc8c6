package dev.infuse.udfs.answer;

import java.io.Serializable;
import java.util.List;
import java.util.Objects;

/**
 * Everything a prompt format or an answerer needs about one question.
 *
 * @param questionId questions.question_id
 * @param benchmark questions.benchmark
 * @param answerType mcq, label, numeric or free
 * @param question the question text (the hypothesis, for NLI)
 * @param options the options in order (A, B, …) for mcq and label questions; empty otherwise
 * @param title the title of the question's document, when it has one; null otherwise
 * @param documentText the question's document, for formats whose task includes it (the ANLI
 *     premise); null when there is none. It is never put in front of a QuALITY question: that is
 *     what {@code passages} are for
 * @param passages the context put in the prompt, in prompt order (retrieved chunks); empty in
 *     closed book
 */
public record AnswerInput(
    String questionId,
    String benchmark,
    String answerType,
    String question,
    List<String> options,
    String title,
    String documentText,
    List<String> passages)
    implements Serializable {
  public AnswerInput {
    Objects.requireNonNull(questionId, "questionId");
    Objects.requireNonNull(benchmark, "benchmark");
    Objects.requireNonNull(answerType, "answerType");
    Objects.requireNonNull(question, "question");
    options = options == null ? List.of() : List.copyOf(options);
    passages = passages == null ? List.of() : List.copyOf(passages);
  }

  /** Whether the answer is one of {@link #options}: mcq and label questions. */
  public boolean hasOptions() {
    return !options.isEmpty()
        && (AnswerTypes.MCQ.equals(answerType) || AnswerTypes.LABEL.equals(answerType));
  }
}
