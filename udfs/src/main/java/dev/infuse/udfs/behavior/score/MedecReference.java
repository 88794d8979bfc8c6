package dev.infuse.udfs.behavior.score;

import java.util.Objects;

/**
 * One MEDEC text's ground truth, as the official script reads it from the CSV.
 *
 * @param textId {@code Text ID}
 * @param errorFlag {@code Error Flag}: 1 or 0
 * @param errorSentenceId {@code Error Sentence ID}: -1 when the text is correct
 * @param correctedSentence {@code Corrected Sentence}; null or {@code NA} when the text is correct
 *     (the script turns an empty cell into "NA")
 */
public record MedecReference(
    String textId, int errorFlag, int errorSentenceId, String correctedSentence) {
  public MedecReference {
    Objects.requireNonNull(textId, "textId");
    correctedSentence = correctedSentence == null ? MedecMetrics.NA : correctedSentence;
  }
}
