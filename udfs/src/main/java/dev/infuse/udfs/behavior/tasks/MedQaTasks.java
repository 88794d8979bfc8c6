package dev.infuse.udfs.behavior.tasks;

import dev.infuse.udfs.behavior.BehaviorTask;
import dev.infuse.udfs.behavior.BehaviorType;
import dev.infuse.udfs.behavior.GoldTarget;
import dev.infuse.udfs.behavior.Turn;
import dev.infuse.udfs.ingest.BadRecordException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * MedQA questions become reactive tasks: a question asking for the most likely diagnosis goes to
 * {@code differential_diagnosis}, any other to the remaining reactive categories drawing from
 * medqa. The context is the vignette with its lettered options; the gold is the letter and text.
 */
final class MedQaTasks {
  static final String SOURCE = "medqa";
  private static final Pattern ASKS_DIAGNOSIS =
      Pattern.compile(
          "(?i)most (likely|probable) diagnosis|diagnosis is most likely|which of the following is the diagnosis");

  private MedQaTasks() {}

  static List<BehaviorTask> build(
      Taxonomy taxonomy,
      TaskRecipe recipe,
      String questionId,
      String question,
      List<String> options,
      String gold,
      Integer goldIndex) {
    Fields.nonBlank("question", question);
    if (options == null || options.isEmpty()) {
      throw new BadRecordException("options: got none, expected at least two lettered options");
    }
    List<String> letters = new ArrayList<>();
    for (int i = 0; i < options.size(); i++) {
      letters.add(String.valueOf((char) ('A' + i)));
    }
    if (gold == null || !letters.contains(gold.trim())) {
      throw new BadRecordException("gold: got '" + gold + "', expected one of " + letters);
    }
    int index = letters.indexOf(gold.trim());
    if (goldIndex != null && goldIndex != index) {
      throw new BadRecordException(
          "gold_index: got "
              + goldIndex
              + ", expected "
              + index
              + " (the index of gold "
              + gold
              + ")");
    }
    boolean diagnosis = ASKS_DIAGNOSIS.matcher(question).find();
    StringBuilder context = new StringBuilder(question.strip()).append("\n");
    for (int i = 0; i < options.size(); i++) {
      context.append('\n').append(letters.get(i)).append(". ").append(options.get(i));
    }
    List<BehaviorTask> tasks = new ArrayList<>();
    for (Category category : taxonomy.categories()) {
      boolean diagnosisCategory = category.name().equals(CaseTasks.DIAGNOSIS_CATEGORY);
      if (category.type() == BehaviorType.REACTIVE
          && category.drawsFrom(SOURCE)
          && !category.name().equals(TemporalTasks.CATEGORY)
          && diagnosisCategory == diagnosis) {
        tasks.add(
            recipe.task(
                category,
                SOURCE,
                questionId,
                List.of(new Turn(Turn.NOTE, context.toString())),
                GoldTarget.answer(letters.get(index), options.get(index)),
                TaskRecipe.Generator.MEDQA,
                null,
                null,
                Map.of("asks_diagnosis", Boolean.toString(diagnosis))));
      }
    }
    return tasks;
  }
}
