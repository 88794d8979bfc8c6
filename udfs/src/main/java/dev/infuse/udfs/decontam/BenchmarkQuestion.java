package dev.infuse.udfs.decontam;

import java.io.Serializable;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The fields of a {@code questions} row that decontamination protects.
 *
 * @param options the answer options, or null
 * @param gold the gold answer as the table stores it: a letter for mcq, the label, a number or free
 *     text
 * @param goldIndex the 0-based gold option for mcq and label questions, or null
 */
public record BenchmarkQuestion(
    String questionId,
    String question,
    List<String> options,
    String gold,
    Integer goldIndex,
    String answerType)
    implements Serializable {

  /**
   * The texts a training document must not contain: the question, every option, and the gold
   * answer's text (for mcq the gold option, not its letter). Distinct, non-blank, in that order.
   */
  public List<String> protectedTexts() {
    Set<String> texts = new LinkedHashSet<>();
    add(texts, question);
    if (options != null) {
      options.forEach(option -> add(texts, option));
    }
    if ("mcq".equals(answerType)) {
      // The stored gold is a letter; the text worth protecting is the option it names.
      if (options != null && goldIndex != null && goldIndex >= 0 && goldIndex < options.size()) {
        add(texts, options.get(goldIndex));
      }
    } else {
      add(texts, gold);
    }
    return List.copyOf(texts);
  }

  private static void add(Set<String> texts, String text) {
    if (text != null && !text.isBlank()) {
      texts.add(text);
    }
  }
}
