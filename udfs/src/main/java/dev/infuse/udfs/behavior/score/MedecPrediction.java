package dev.infuse.udfs.behavior.score;

/**
 * One system answer for a MEDEC text, as a submission line carries it.
 *
 * @param errorFlag 1 when an error is flagged, 0 when not
 * @param sentenceId the sentence named as wrong; -1 for none; null when a flag named no sentence
 *     (then it matches no reference id)
 * @param correction the corrected sentence, or {@code NA}; null is read as {@code NA}
 */
public record MedecPrediction(int errorFlag, Integer sentenceId, String correction) {
  /** The prediction for a text judged correct: 0, -1, NA. */
  public static MedecPrediction noError() {
    return new MedecPrediction(0, -1, MedecMetrics.NA);
  }
}
