package dev.infuse.udfs.ingest;

import java.util.List;
import java.util.Map;

/**
 * One row of the {@code questions} table, as a reader produced it. Like {@link DocumentRecord},
 * every field but {@code location} is content.
 *
 * @param questionId stable key, {@code <benchmark>:<source id>}
 * @param docId the document the question is about ({@code documents.doc_id}), or null when the
 *     question stands alone or retrieves over a whole corpus
 * @param benchmark {@code quality}, {@code gsm8k}, …
 * @param split {@code train}, {@code dev}, {@code test}, …
 * @param question the question text
 * @param options the answer options for {@code mcq} and {@code label} questions, null otherwise
 * @param gold the gold answer: the option letter for {@code mcq}, the label for {@code label}, the
 *     number for {@code numeric}, the answer text for {@code free}; null only when the split has no
 *     labels
 * @param goldIndex 0-based index of the gold option for {@code mcq} and {@code label}, else null
 * @param answerType one of {@link AnswerType}'s names: {@code mcq}, {@code free}, {@code numeric},
 *     {@code label}
 * @param subsets named subsets the question belongs to, e.g. {@code difficult}; empty when none
 * @param meta format-specific fields, as strings
 * @param location where it was read, for error messages only
 */
public record QuestionRecord(
    String questionId,
    String docId,
    String benchmark,
    String split,
    String question,
    List<String> options,
    String gold,
    Integer goldIndex,
    String answerType,
    List<String> subsets,
    Map<String, String> meta,
    String location) {}
