package dev.infuse.udfs.score;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The strict parser of an LLM judge's answer. The rubric ({@link #PROMPT_ID}) asks for reasoning
 * and then a last line {@code VERDICT: CORRECT} or {@code VERDICT: INCORRECT}. Exactly one verdict
 * line is accepted, and it must be the last non-blank line; anything else (no verdict, two
 * verdicts, a verdict followed by more text, "VERDICT: PARTIALLY CORRECT") is unparseable, and the
 * score job quarantines the prediction rather than guessing.
 *
 * @param correct the verdict; null when unparseable
 * @param problem why it is unparseable; null when parsed
 */
public record JudgeVerdict(Boolean correct, String problem) {
  /**
   * The judge's rubric prompt (conf/prompts/financebench-judge.yaml); bump its version on any
   * change.
   */
  public static final String PROMPT_ID = "financebench-judge";

  private static final Pattern LINE =
      Pattern.compile(
          "^\\s*\\**\\s*verdict\\s*\\**\\s*:\\s*\\**\\s*(.*?)\\s*\\**\\s*$",
          Pattern.CASE_INSENSITIVE);

  public boolean parsed() {
    return correct != null;
  }

  public static JudgeVerdict parse(String output) {
    if (output == null || output.isBlank()) {
      return new JudgeVerdict(
          null,
          "judge output: got nothing, expected a last line VERDICT: CORRECT or VERDICT: INCORRECT");
    }
    List<String> lines = output.strip().lines().filter(l -> !l.isBlank()).toList();
    List<String> verdicts = new ArrayList<>();
    for (String line : lines) {
      if (LINE.matcher(line).matches()) {
        verdicts.add(line);
      }
    }
    if (verdicts.size() != 1) {
      return new JudgeVerdict(
          null,
          "judge output: got "
              + verdicts.size()
              + " VERDICT line(s), expected exactly one, as the last line");
    }
    String last = lines.get(lines.size() - 1);
    Matcher matcher = LINE.matcher(last);
    if (!matcher.matches()) {
      return new JudgeVerdict(
          null, "judge output: the VERDICT line is followed by more text, expected it last");
    }
    String word = matcher.group(1).replaceAll("[.!]+$", "").strip().toUpperCase(Locale.ROOT);
    return switch (word) {
      case "CORRECT" -> new JudgeVerdict(true, null);
      case "INCORRECT" -> new JudgeVerdict(false, null);
      default ->
          new JudgeVerdict(
              null,
              "judge output: got VERDICT: " + matcher.group(1) + ", expected CORRECT or INCORRECT");
    };
  }
}
