package dev.infuse.udfs.mix;

/**
 * How a synthetic QA pair reads as training text: {@code Question: …\nAnswer: …}. Versioned,
 * because a trained model and its shards must say which format they saw; change the text only with
 * a new version.
 */
public final class QaTemplate {
  public static final String NAME = "qa-plain";
  public static final int VERSION = 1;

  /** {@code qa-plain@1}, as manifests and train_info.json record it. */
  public static final String ID = NAME + "@" + VERSION;

  /** What precedes the question. */
  public static final String QUESTION_PREFIX = "Question: ";

  /** What separates the question from the answer; the prompt ends with it. */
  public static final String ANSWER_PREFIX = "\nAnswer: ";

  private QaTemplate() {}

  /** The context part: never a target when the loss is on answers only. */
  public static String prompt(String question) {
    return QUESTION_PREFIX + question + ANSWER_PREFIX;
  }

  /** The whole pair as one text. */
  public static String text(String question, String answer) {
    return prompt(question) + answer;
  }
}
