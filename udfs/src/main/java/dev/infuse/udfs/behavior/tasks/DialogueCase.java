package dev.infuse.udfs.behavior.tasks;

import dev.infuse.udfs.ingest.BadRecordException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Parses an ACI-BENCH visit dialogue ({@code [doctor] …} / {@code [patient] …} lines) into a {@link
 * ClinicalCase} of turns that keep their speakers, with a finding for each vital or lab named with
 * a known range and followed closely by a number ({@code potassium is 3.9}).
 */
final class DialogueCase {
  static final String SECTION = "dialogue";

  private static final Pattern TAGGED = Pattern.compile("^\\[([^\\]]+)\\]\\s*(.*)$");
  private static final Pattern STATED =
      Pattern.compile(
          "\\b("
              + String.join("|", PlausibleRanges.aliases())
              + ")\\b[^.?!\\d]{0,30}?(?<![\\w.])((?:"
              + NumberText.NUMBER.pattern()
              + ")(?:/(?:"
              + NumberText.NUMBER.pattern()
              + "))?)(?![\\w/]|\\.\\d)",
          Pattern.CASE_INSENSITIVE);

  private DialogueCase() {}

  /**
   * @throws BadRecordException when the text has no speaker-tagged turns
   */
  static ClinicalCase parse(String dialogue) {
    List<CaseLine> lines = new ArrayList<>();
    List<Finding> findings = new ArrayList<>();
    for (String raw : dialogue.split("\n")) {
      if (raw.isBlank()) {
        continue;
      }
      Matcher tagged = TAGGED.matcher(raw.strip());
      if (tagged.matches()) {
        lines.add(
            CaseLine.spoken(tagged.group(1).strip().toLowerCase(Locale.ROOT), tagged.group(2)));
      } else if (!lines.isEmpty()) {
        // an untagged line continues the turn before it
        CaseLine last = lines.remove(lines.size() - 1);
        lines.add(last.withText(last.text() + "\n" + raw.strip()));
      } else {
        throw new BadRecordException(
            "text: got a dialogue starting '"
                + raw.strip().substring(0, Math.min(40, raw.strip().length()))
                + "', expected [speaker] tagged turns");
      }
    }
    if (lines.isEmpty()) {
      throw new BadRecordException("text: got an empty dialogue, expected [speaker] tagged turns");
    }
    for (int i = 0; i < lines.size(); i++) {
      Matcher stated = STATED.matcher(lines.get(i).text());
      while (stated.find()) {
        String item = stated.group(1).toLowerCase(Locale.ROOT);
        double first = NumberText.parts(stated.group(2)).get(0);
        if (PlausibleRanges.of(item, first).isPresent()) {
          findings.add(new Finding(i, SECTION, item, stated.group(2), null, stated.start(2)));
        }
      }
    }
    return new ClinicalCase(lines, findings);
  }
}
