package dev.infuse.udfs.generate;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Reads plain-text outputs (rephrases, entity documents, focal rewrites): drops a surrounding code
 * fence, chatty preamble lines ("Here is the rewritten document:", "Sure!") and a closing offer
 * ("Let me know if…"), so only the document text is trained on. Empty text and refusals are
 * failures. Never throws.
 */
public final class TextOutputParser {
  /** A line announcing the output: ends with a colon and names what follows. */
  private static final Pattern ANNOUNCEMENT =
      Pattern.compile(
          "(?i)^\\s*(?:[*#_]+\\s*)?(?:(?:sure|certainly|okay|ok|of course|absolutely)[,.!]?\\s*)?"
              + "(?:here(?: is|'s| are)|below is|the following is|rewritten|rephrased|rewrite|rephrase|focal rewrite"
              + "|document|text|output)\\b[^\\n]{0,160}:\\s*(?:[*_]+)?\\s*$");

  /** A bare acknowledgement on its own line. */
  private static final Pattern ACKNOWLEDGEMENT =
      Pattern.compile(
          "(?i)^\\s*(?:sure|certainly|okay|ok|of course|absolutely)(?:[,.!]|\\b[^\\n]{0,80}[.!])\\s*$");

  private static final Pattern CLOSING =
      Pattern.compile(
          "(?i)^\\s*(?:let me know|i hope this|feel free to|if you(?:'d| would) like|would you like)[^\\n]*$");
  private static final Pattern REFUSAL =
      Pattern.compile(
          "(?i)^\\s*(?:i'm sorry|i am sorry|sorry,|i cannot|i can't|i can not|as an ai)\\b");

  private TextOutputParser() {}

  /** One value, the cleaned text, or a failure saying why there is none. */
  public static ParseResult<String> parse(String raw) {
    if (raw == null || raw.isBlank()) {
      return ParseResult.failure("empty output");
    }
    String text = raw.strip();
    if (text.startsWith("```")) {
      text = OutputText.unfence(text);
    }
    List<String> lines = new ArrayList<>(List.of(text.strip().split("\\R", -1)));
    while (!lines.isEmpty()
        && (lines.get(0).isBlank()
            || ANNOUNCEMENT.matcher(lines.get(0)).matches()
            || ACKNOWLEDGEMENT.matcher(lines.get(0)).matches() && lines.size() > 1)) {
      lines.remove(0);
    }
    while (!lines.isEmpty()
        && (lines.get(lines.size() - 1).isBlank()
            || CLOSING.matcher(lines.get(lines.size() - 1)).matches())) {
      lines.remove(lines.size() - 1);
    }
    String body = String.join("\n", lines).strip();
    if (body.startsWith("```")) {
      body = OutputText.unfence(body).strip();
    }
    if (body.isEmpty()) {
      return ParseResult.failure(raw.isBlank() ? "empty output" : "no text besides a preamble");
    }
    if (REFUSAL.matcher(body).find()) {
      return ParseResult.failure("the model refused: " + firstLine(body));
    }
    return new ParseResult<>(List.of(body), List.of());
  }

  private static String firstLine(String text) {
    int end = text.indexOf('\n');
    String line = end < 0 ? text : text.substring(0, end);
    return line.length() > 120 ? line.substring(0, 120) + "…" : line;
  }
}
