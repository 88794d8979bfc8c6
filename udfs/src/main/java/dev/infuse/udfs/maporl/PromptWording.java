package dev.infuse.udfs.maporl;

import java.util.List;
import java.util.Locale;

/**
 * The MAPoRL wording that is not in the two YAML templates: the per-kind answer instructions of the
 * first turn, the verifier-score lines and their bands, and how a peer's solution is quoted. It is
 * versioned as {@code maporl-wording@}{@link #VERSION}; bump {@link #VERSION} on any change that
 * can alter a prompt. Texts follow the reference ({@code utils/dataset.py}, {@code
 * ppov2_trainer_multi_different_model.py}, {@code utils_multi_unified_chat.py}).
 */
public final class PromptWording {
  /** The id under which this wording is versioned. */
  public static final String ID = "maporl-wording";

  /** Bumped on any change to the texts below. */
  public static final int VERSION = 1;

  /** The reference's GSM8K instruction (its default model branch), answer format included. */
  public static final String GSM8K_INSTRUCTION =
      "Provide a short but precise reasoning for your solution. At the end, you MUST write the"
          + " answer in the following format:\n\nAnswer: \\boxed{XX}\n\nPlease ensure that the"
          + " final answer is always formatted this way.";

  /**
   * The reference's ANLI instruction ({@code message_formatter}), with the boxed answer format the
   * other kinds use (the reference's ANLI data prompts ask for {@code \boxed{entailment}} etc.).
   */
  public static final String ANLI_INSTRUCTION =
      "Please determine the relationship between the premise and hypothesis. Choose one of the"
          + " following: 'entailment', 'neutral', or 'contradiction'. Start with a concise"
          + " reasoning for your choice. You do not need to restate the premise and hypothesis. At"
          + " the end, you MUST write the answer in the following format:\n\nAnswer:"
          + " \\boxed{XX}\n\nwhere XX is entailment, neutral or contradiction. Please ensure that"
          + " the final answer is always formatted this way.";

  /** Infuse's MCQ instruction (the reference has no MCQ task), in the same shape; %s: letters. */
  public static final String MCQ_INSTRUCTION =
      "Provide a short but precise reasoning for your choice. At the end, you MUST write the"
          + " answer in the following format:\n\nAnswer: \\boxed{X}\n\nwhere X is the letter of"
          + " the correct option (%s). Please ensure that the final answer is always formatted this"
          + " way.";

  /** Score bands: below 0.3, below 0.6, below 0.8, otherwise; verbatim from the reference. */
  public static final List<String> BANDS =
      List.of(
          "Your answer is highly likely wrong.",
          "Your answer might be wrong, or your reasoning needs to have a stronger argument.",
          "Your answer seems right, but check your reasoning again, there might be some room for"
              + " improvement.",
          "Your answer is likely right with high probability.");

  private PromptWording() {}

  /** The first-turn instruction for a kind; {@code optionCount} names the MCQ letters. */
  public static String answerInstruction(QuestionKind kind, int optionCount) {
    return switch (kind) {
      case GSM8K -> GSM8K_INSTRUCTION;
      case ANLI -> ANLI_INSTRUCTION;
      case MCQ -> String.format(Locale.ROOT, MCQ_INSTRUCTION, letters(optionCount));
    };
  }

  /** The band text of a verifier score: < 0.3, < 0.6, < 0.8, otherwise. */
  public static String band(double score) {
    if (score < 0.3) {
      return BANDS.get(0);
    }
    if (score < 0.6) {
      return BANDS.get(1);
    }
    if (score < 0.8) {
      return BANDS.get(2);
    }
    return BANDS.get(3);
  }

  /**
   * The agent's own score line, as the reference appends it after each response: "Reward from a
   * verifier of your answer: 0.420 out of 1.0, which means Your answer might be wrong, …".
   */
  public static String ownScore(double score) {
    return "Reward from a verifier of your answer: "
        + String.format(Locale.ROOT, "%.3f", score)
        + " out of 1.0, which means "
        + band(score);
  }

  /**
   * A peer's score line: the own line with the reference's substitutions ("Reward from a verifier
   * of your answer:" becomes "Reward associated with agent k's solution calculated by verifier: ",
   * then "your" becomes "agent k's" and "Your" becomes "Agent k's").
   */
  public static String peerScore(int peerNumber, double score) {
    return ownScore(score)
        .replace(
            "Reward from a verifier of your answer:",
            "Reward associated with agent " + peerNumber + "'s solution calculated by verifier: ")
        .replace("your", "agent " + peerNumber + "'s")
        .replace("Your", "Agent " + peerNumber + "'s");
  }

  /**
   * A peer's quoted solution, with its score line when there is one, as the reference lays it out.
   */
  public static String peerBlock(int peerNumber, String response, Double score) {
    String block = "\n\nAgent " + peerNumber + " solution: ```" + response + "```";
    return score == null ? block : block + "\n\n" + peerScore(peerNumber, score);
  }

  /** "A, B, C or D" for 4 options; "A, B, C or D" too when the count is unknown (0). */
  static String letters(int optionCount) {
    int n = optionCount <= 0 ? 4 : Math.min(optionCount, 26);
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < n; i++) {
      if (i > 0) {
        out.append(i == n - 1 ? " or " : ", ");
      }
      out.append((char) ('A' + i));
    }
    return out.toString();
  }

  /** The version string of this wording, {@code maporl-wording@1}. */
  public static String versionTag() {
    return ID + "@" + VERSION;
  }
}
