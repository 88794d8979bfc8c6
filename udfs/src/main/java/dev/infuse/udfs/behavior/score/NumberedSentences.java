package dev.infuse.udfs.behavior.score;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The sentences of a rendered context, with the ids a flag names. MEDEC notes arrive numbered (one
 * "{@code <id> <sentence>}" line each, a line without an id continuing the one before, as MEDEC's
 * odd line breaks need); any other context is split at sentence ends and numbered from 0, as MEDEC
 * numbers.
 */
final class NumberedSentences {
  /** One sentence and its id. */
  record Sentence(int id, String text) {}

  /**
   * A turn's speaker prefix as BehaviorPrompts renders it: a lowercase id ({@code note}, {@code
   * doctor}, {@code patient_guest}). A capitalised label such as "Blood Pressure:" in an OSCE case
   * is content, and stays.
   */
  private static final Pattern SPEAKER = Pattern.compile("^[a-z][a-z0-9_-]{0,30}:\\s+");

  private static final Pattern NUMBERED = Pattern.compile("^(\\d+)\\s+(\\S.*)$");
  private static final Pattern SENTENCE_END = Pattern.compile("(?<=[.!?])\\s+(?=[A-Z0-9(])");

  private NumberedSentences() {}

  static List<Sentence> of(String context) {
    List<String> lines = new ArrayList<>();
    for (String line : context.split("\\R")) {
      String text = SPEAKER.matcher(line.strip()).replaceFirst("");
      if (!text.isBlank()) {
        lines.add(text.strip());
      }
    }
    long numbered = lines.stream().filter(l -> NUMBERED.matcher(l).matches()).count();
    return numbered * 2 >= lines.size() && numbered > 0 ? numbered(lines) : split(lines);
  }

  private static List<Sentence> numbered(List<String> lines) {
    List<Sentence> out = new ArrayList<>();
    for (String line : lines) {
      Matcher m = NUMBERED.matcher(line);
      if (m.matches()) {
        out.add(new Sentence(Integer.parseInt(m.group(1)), m.group(2).strip()));
      } else if (!out.isEmpty()) {
        Sentence last = out.remove(out.size() - 1);
        out.add(new Sentence(last.id(), last.text() + " " + line));
      } else {
        out.add(new Sentence(0, line));
      }
    }
    return out;
  }

  private static List<Sentence> split(List<String> lines) {
    List<Sentence> out = new ArrayList<>();
    for (String line : lines) {
      for (String sentence : SENTENCE_END.split(line)) {
        if (!sentence.isBlank()) {
          out.add(new Sentence(out.size(), sentence.strip()));
        }
      }
    }
    return out;
  }
}
