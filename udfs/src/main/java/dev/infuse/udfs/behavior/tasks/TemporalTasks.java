package dev.infuse.udfs.behavior.tasks;

import dev.infuse.udfs.behavior.BehaviorTask;
import dev.infuse.udfs.behavior.GoldTarget;
import dev.infuse.udfs.behavior.Turn;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.regex.Pattern;

/**
 * Temporal ordering from a clinical note: the sentences of its history of present illness that
 * carry a time cue ("two weeks ago", "since", "then", a year) are the events, in the note's order;
 * the task shows them shuffled by the seed and the gold is the note's order. Notes with fewer than
 * three such sentences make no task.
 */
final class TemporalTasks {
  static final String CATEGORY = "temporal_ordering";
  static final int MIN_EVENTS = 3;
  static final int MAX_EVENTS = 6;

  private static final Pattern HPI =
      Pattern.compile("(?i)^\\s*history of present illness\\s*:?\\s*$");
  private static final Pattern HEADING = Pattern.compile("^\\s*[A-Z][A-Z0-9 /&,()-]{3,}:?\\s*$");
  private static final Pattern SENTENCE_END =
      Pattern.compile("(?<!\\b(?:Dr|Mr|Mrs|Ms|St)\\.)(?<=[.!?])\\s+(?=[A-Z])");
  private static final Pattern TIME_CUE =
      Pattern.compile(
          "(?i)\\b(ago|since|yesterday|today|tonight|last (?:night|week|month|year)|previously"
              + "|prior to|then|later|initially|subsequently|afterwards?|recently|currently"
              + "|(?:\\d+|one|two|three|four|five|six|seven|eight|nine|ten|several|a few|a couple of)"
              + " (?:hours?|days?|weeks?|months?|years?)|(?:19|20)\\d\\d)\\b");

  private TemporalTasks() {}

  static Optional<BehaviorTask> build(
      Category category, TaskRecipe recipe, String source, String recordId, String note) {
    List<String> events = events(note);
    if (events.size() < MIN_EVENTS) {
      return Optional.empty();
    }
    SplittableRandom random = recipe.random(recordId, category.name());
    List<Integer> shownToNote = new ArrayList<>();
    for (int i = 0; i < events.size(); i++) {
      shownToNote.add(i);
    }
    for (int i = shownToNote.size() - 1; i > 0; i--) {
      int j = random.nextInt(i + 1);
      shownToNote.set(i, shownToNote.set(j, shownToNote.get(i)));
    }
    if (isIdentity(shownToNote)) {
      // a shuffle that happens to leave the note's order would make the task trivial
      shownToNote.add(shownToNote.remove(0));
    }
    List<String> shown = new ArrayList<>();
    StringBuilder context = new StringBuilder();
    Integer[] order = new Integer[events.size()];
    for (int k = 0; k < shownToNote.size(); k++) {
      String event = events.get(shownToNote.get(k));
      shown.add(event);
      order[shownToNote.get(k)] = k;
      context.append('[').append(k).append("] ").append(event).append('\n');
    }
    return Optional.of(
        recipe.task(
            category,
            source,
            recordId,
            List.of(new Turn(Turn.NOTE, context.toString().strip())),
            GoldTarget.order(shown, List.of(order)),
            TaskRecipe.Generator.TEMPORAL,
            null,
            null,
            Map.of("events", Integer.toString(events.size()))));
  }

  /** Time-cued sentences of the HPI section, in note order, at most {@link #MAX_EVENTS}. */
  static List<String> events(String note) {
    List<String> events = new ArrayList<>();
    boolean inHpi = false;
    StringBuilder hpi = new StringBuilder();
    for (String line : note.split("\n")) {
      if (HPI.matcher(line).matches()) {
        inHpi = true;
      } else if (inHpi && HEADING.matcher(line).matches()) {
        break;
      } else if (inHpi) {
        hpi.append(line.strip()).append(' ');
      }
    }
    for (String sentence : SENTENCE_END.split(hpi.toString().strip())) {
      if (!sentence.isBlank() && TIME_CUE.matcher(sentence).find() && events.size() < MAX_EVENTS) {
        events.add(sentence.strip());
      }
    }
    return events;
  }

  private static boolean isIdentity(List<Integer> permutation) {
    for (int i = 0; i < permutation.size(); i++) {
      if (permutation.get(i) != i) {
        return false;
      }
    }
    return true;
  }
}
