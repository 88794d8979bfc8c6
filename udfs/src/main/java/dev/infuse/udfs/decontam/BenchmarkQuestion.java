package dev.infuse.udfs.decontam;

import java.io.Serializable;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The fields of a {@code questions} row that decontamination protects, and the document the
 * question is about.
 *
 * @param options the answer options, or null
 * @param gold the gold answer as the table stores it: a letter for mcq, the label, a number or free
 *     text
 * @param goldIndex the 0-based gold option for mcq and label questions, or null
 * @param docId the question's source document ({@code documents.doc_id}, {@code <corpus>:<id>}), or
 *     null for stand-alone questions: its text decides which of the question's n-grams are quotes
 *     of the source (see {@link BenchmarkNgramIndex})
 */
public record BenchmarkQuestion(
    String questionId,
    String question,
    List<String> options,
    String gold,
    Integer goldIndex,
    String answerType,
    String docId)
    implements Serializable {

  /** A stand-alone question: no source document, so none of its n-grams is a quote. */
  public BenchmarkQuestion(
      String questionId,
      String question,
      List<String> options,
      String gold,
      Integer goldIndex,
      String answerType) {
    this(questionId, question, options, gold, goldIndex, answerType, null);
  }

  /** The corpus of {@link #docId()} (the part before its first ':'), or null without one. */
  public String corpus() {
    return corpusOf(docId);
  }

  /** The corpus of a {@code <corpus>:<id>} document id; null for null or an id without ':'. */
  public static String corpusOf(String docId) {
    if (docId == null) {
      return null;
    }
    int colon = docId.indexOf(':');
    return colon <= 0 ? null : docId.substring(0, colon);
  }

  /**
   * The texts a training document must not contain: the question, every option, and the gold
   * answer's text (for mcq the gold option, not its letter). Distinct, non-blank, in that order.
   */
  public List<String> protectedTexts() {
    return List.copyOf(protectedFields().keySet());
  }

  /**
   * {@link #protectedTexts()}, each mapped to whether it is the question's own text (true) or an
   * option or answer (false). A text that is both counts as the question.
   */
  public Map<String, Boolean> protectedFields() {
    Map<String, Boolean> texts = new LinkedHashMap<>();
    add(texts, question, true);
    if (options != null) {
      options.forEach(option -> add(texts, option, false));
    }
    if ("mcq".equals(answerType)) {
      // The stored gold is a letter; the text worth protecting is the option it names.
      if (options != null && goldIndex != null && goldIndex >= 0 && goldIndex < options.size()) {
        add(texts, options.get(goldIndex), false);
      }
    } else {
      add(texts, gold, false);
    }
    return texts;
  }

  private static void add(Map<String, Boolean> texts, String text, boolean isQuestion) {
    if (text != null && !text.isBlank()) {
      texts.merge(text, isQuestion, Boolean::logicalOr);
    }
  }
}
