package dev.infuse.udfs.behavior.tasks;

import dev.infuse.udfs.behavior.Turn;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A structured, editable view of a clinical case: its lines in order (written lines under section
 * headings, and dialogue turns with speakers) and the findings with values anchored in them.
 * Perturbations change a case only through the three edits here, so each change is one recorded,
 * checkable operation; every edit returns a new case.
 */
public record ClinicalCase(List<CaseLine> lines, List<Finding> findings) {
  public ClinicalCase {
    lines = List.copyOf(lines);
    findings = List.copyOf(findings);
    for (Finding f : findings) {
      String text = lines.get(f.line()).text();
      if (f.end() > text.length() || !text.startsWith(f.value(), f.start())) {
        throw new IllegalArgumentException(
            "finding "
                + f.item()
                + ": got value '"
                + f.value()
                + "' not at "
                + f.start()
                + " of line "
                + f.line());
      }
    }
  }

  /** Written lines that state no finding: history, symptoms, free-text exam. */
  public List<CaseLine> narrative() {
    List<CaseLine> narrative = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      int index = i;
      if (!lines.get(i).isTurn() && findings.stream().noneMatch(f -> f.line() == index)) {
        narrative.add(lines.get(i));
      }
    }
    return narrative;
  }

  public List<CaseLine> dialogue() {
    return lines.stream().filter(CaseLine::isTurn).toList();
  }

  public List<Finding> findingsOn(int line) {
    return findings.stream().filter(f -> f.line() == line).toList();
  }

  /**
   * Replaces characters {@code [start, end)} of one line; findings after the span move, a finding
   * that is exactly the span takes the new value, one overlapping it otherwise is refused.
   */
  public ClinicalCase replace(int line, int start, int end, String replacement) {
    CaseLine old = lines.get(line);
    String text = old.text();
    List<CaseLine> changed = new ArrayList<>(lines);
    changed.set(line, old.withText(text.substring(0, start) + replacement + text.substring(end)));
    int shift = replacement.length() - (end - start);
    List<Finding> moved = new ArrayList<>();
    for (Finding f : findings) {
      if (f.line() != line || f.end() <= start) {
        moved.add(f);
      } else if (f.start() == start && f.end() == end) {
        moved.add(f.withValue(replacement));
      } else if (f.start() >= end) {
        moved.add(f.at(line, f.start() + shift));
      } else {
        throw new IllegalArgumentException(
            "replace: span "
                + start
                + ".."
                + end
                + " of line "
                + line
                + " cuts finding "
                + f.item());
      }
    }
    return new ClinicalCase(changed, moved);
  }

  /** Removes one line and the findings it states. */
  public ClinicalCase removeLine(int line) {
    List<CaseLine> changed = new ArrayList<>(lines);
    changed.remove(line);
    List<Finding> moved = new ArrayList<>();
    for (Finding f : findings) {
      if (f.line() != line) {
        moved.add(f.line() > line ? f.at(f.line() - 1, f.start()) : f);
      }
    }
    return new ClinicalCase(changed, moved);
  }

  /** Inserts a line at {@code index}, stating {@code stated} (or nothing when null). */
  public ClinicalCase insertLine(int index, CaseLine added, Finding stated) {
    List<CaseLine> changed = new ArrayList<>(lines);
    changed.add(index, added);
    List<Finding> moved = new ArrayList<>();
    for (Finding f : findings) {
      moved.add(f.line() >= index ? f.at(f.line() + 1, f.start()) : f);
    }
    if (stated != null) {
      moved.add(stated.at(index, stated.start()));
      moved.sort((a, b) -> a.line() != b.line() ? a.line() - b.line() : a.start() - b.start());
    }
    return new ClinicalCase(changed, moved);
  }

  /**
   * The case as context turns: each run of written lines is one {@link Turn#NOTE} turn with a
   * heading per section; each dialogue line is a turn of its own speaker.
   */
  public List<Turn> toTurns() {
    List<Turn> turns = new ArrayList<>();
    StringBuilder note = new StringBuilder();
    String section = null;
    for (CaseLine line : lines) {
      if (line.isTurn()) {
        flush(note, turns);
        section = null;
        turns.add(new Turn(line.speaker(), line.text()));
        continue;
      }
      if (!Objects.equals(section, line.section())) {
        section = line.section();
        note.append(section).append('\n');
      }
      note.append("  ").append(line.text()).append('\n');
    }
    flush(note, turns);
    return turns;
  }

  private static void flush(StringBuilder note, List<Turn> turns) {
    if (!note.isEmpty()) {
      turns.add(new Turn(Turn.NOTE, note.toString().stripTrailing()));
      note.setLength(0);
    }
  }
}
