package dev.infuse.udfs.behavior.score;

import dev.infuse.udfs.behavior.BehaviorType;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads a MEDEC prediction from a behaviour-mode reply. "Sentence N is wrong: … It should read:
 * <correction>" gives flag 1, sentence N and the correction (to the end of its line). Any other
 * reply the default classifier reads as proactive gives flag 1 with no sentence id (matching no
 * reference id) and the correction if one is given, else NA. Anything else is 0, -1, NA.
 */
public final class MedecResponseParser {
  /** Bumped on any change that alters a parse. */
  public static final int VERSION = 1;

  private static final Pattern WRONG_SENTENCE =
      Pattern.compile("(?i)\\bsentence\\s+(-?\\d{1,9})\\s+is\\s+(?:wrong|incorrect)\\b");
  private static final Pattern SHOULD_READ =
      Pattern.compile("(?i)\\bshould\\s+read\\s*:?\\s*([^\\r\\n]+)");
  private static final BehaviorClassifier CLASSIFIER = new ChainedBehaviorClassifier();

  private MedecResponseParser() {}

  /** The prediction in {@code response}; null for a null or blank one (a missing prediction). */
  public static MedecPrediction parse(String response) {
    if (response == null || response.isBlank()) {
      return null;
    }
    Matcher correction = SHOULD_READ.matcher(response);
    String corrected = correction.find() ? correction.group(1).strip() : MedecMetrics.NA;
    Matcher wrong = WRONG_SENTENCE.matcher(response);
    if (wrong.find()) {
      return new MedecPrediction(1, Integer.parseInt(wrong.group(1)), corrected);
    }
    if (CLASSIFIER.classify(response).behavior() == BehaviorType.PROACTIVE) {
      return new MedecPrediction(1, null, corrected);
    }
    return MedecPrediction.noError();
  }
}
