package dev.infuse.udfs.decontam;

import java.io.Serializable;

/**
 * One benchmark n-gram found in a training text.
 *
 * @param questionId the benchmark question whose text holds the n-gram
 * @param ngram the matched words, normalised, joined by single spaces
 * @param charStart UTF-16 index of the first matched word in the original training text
 * @param charEnd UTF-16 index just past the last matched word
 * @param inQuestionText the n-gram is in the question's own text, not only in an option or answer
 * @param sourceQuote the n-gram also occurs in the question's own source document
 * @param questionCorpus the corpus of the question's source document, or null
 */
public record ContaminationHit(
    String questionId,
    String ngram,
    int charStart,
    int charEnd,
    boolean inQuestionText,
    boolean sourceQuote,
    String questionCorpus)
    implements Serializable {}
