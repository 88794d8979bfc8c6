package dev.infuse.udfs.behavior.tasks;

import dev.infuse.udfs.behavior.BehaviorTask;
import dev.infuse.udfs.behavior.BehaviorType;
import dev.infuse.udfs.behavior.GoldTarget;
import dev.infuse.udfs.behavior.Turn;
import dev.infuse.udfs.ingest.BadRecordException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * MEDEC notes: exactly one task per note, from its annotation. A note with an error is a task of
 * the first proactive category drawing from medec (GoldTarget.error with MEDEC's sentence id); one
 * without is a task of the first restraint category drawing from medec. The context shows MEDEC's
 * numbered sentences, so a response can name "sentence N".
 */
final class MedecTasks {
  static final String SOURCE = "medec";
  private static final Pattern NUMBERED = Pattern.compile("^(\\d+)\\s+(.*)$");

  /** Who presents which sentence in the conversation form: a fixed rotation, no randomness. */
  private static final List<String> PRESENTERS = List.of("resident", "nurse", "resident");

  private MedecTasks() {}

  static Optional<BehaviorTask> build(
      Taxonomy taxonomy,
      TaskRecipe recipe,
      boolean conversation,
      String docId,
      Map<String, String> meta) {
    String flag = Fields.required(meta, "error_flag", "0 or 1").trim();
    if (!flag.equals("0") && !flag.equals("1")) {
      throw new BadRecordException("meta.error_flag: got '" + flag + "', expected 0 or 1");
    }
    String sentences = Fields.required(meta, "sentences", "the note's numbered sentences");
    GoldTarget gold;
    BehaviorType type;
    if (flag.equals("1")) {
      int sentenceId = Fields.nonNegativeInt(meta, "error_sentence_id");
      String wrong = Fields.required(meta, "error_sentence", "the erroneous sentence");
      String corrected = Fields.required(meta, "corrected_sentence", "the corrected sentence");
      gold = GoldTarget.error(sentenceId, wrong, corrected, null);
      type = BehaviorType.PROACTIVE;
    } else {
      gold = GoldTarget.none();
      type = BehaviorType.RESTRAINT;
    }
    Optional<Category> category =
        taxonomy.categories().stream()
            .filter(c -> c.type() == type && c.drawsFrom(SOURCE))
            .findFirst();
    return category.map(
        c ->
            recipe.task(
                c,
                SOURCE,
                docId,
                context(sentences, conversation),
                gold,
                TaskRecipe.Generator.MEDEC,
                null,
                null,
                Map.of("error_flag", flag, "form", conversation ? "conversation" : "note")));
  }

  private static List<Turn> context(String sentences, boolean conversation) {
    if (!conversation) {
      return List.of(new Turn(Turn.NOTE, sentences.strip()));
    }
    List<Turn> turns = new ArrayList<>();
    turns.add(
        new Turn(
            "attending", "Let's go over this patient. Present the note sentence by sentence."));
    for (String line : sentences.strip().split("\n")) {
      if (line.isBlank()) {
        continue;
      }
      Matcher numbered = NUMBERED.matcher(line.strip());
      if (numbered.matches()) {
        int id = Integer.parseInt(numbered.group(1));
        turns.add(
            new Turn(
                PRESENTERS.get(id % PRESENTERS.size()),
                "Sentence " + id + ": " + numbered.group(2)));
      } else if (turns.size() > 1) {
        // an unnumbered line continues the sentence before it
        Turn last = turns.remove(turns.size() - 1);
        turns.add(new Turn(last.speaker(), last.text() + " " + line.strip()));
      } else {
        throw new BadRecordException(
            "meta.sentences: got a first line '"
                + line.strip()
                + "', expected '<number> <sentence>'");
      }
    }
    turns.add(new Turn("attending", "Thank you. Anything in the note we should act on?"));
    return turns;
  }
}
