package dev.infuse.udfs.behavior.tasks;

import dev.infuse.udfs.behavior.BehaviorTask;
import dev.infuse.udfs.ingest.BadRecordException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Builds behaviour tasks from ingested rows ({@code documents} and {@code questions}), one
 * generator per source, for the categories of a taxonomy. Every task is a function of the row, the
 * taxonomy and the seed: building twice gives equal tasks.
 */
public final class TaskBuilder {
  private final Taxonomy taxonomy;
  private final TaskRecipe recipe;
  private final boolean conversation;
  private final Perturbations perturbations = Perturbations.defaults();

  /**
   * @param conversation render MEDEC notes as a clinicians' conversation instead of one note turn
   */
  public TaskBuilder(Taxonomy taxonomy, long seed, boolean conversation) {
    this.taxonomy = Objects.requireNonNull(taxonomy, "taxonomy");
    this.recipe = new TaskRecipe(seed);
    this.conversation = conversation;
  }

  /**
   * Tasks from one {@code documents} row: a MEDEC note, an AgentClinic case ({@code
   * meta.osce_json}), or an ACI-BENCH dialogue or note ({@code meta.kind}).
   *
   * @throws BadRecordException naming the field, the value got and the value expected
   */
  public List<BehaviorTask> fromDocument(
      String corpus, String docId, String title, String text, Map<String, String> meta) {
    Fields.nonBlank("doc_id", docId);
    if (corpus == null) {
      throw new BadRecordException("corpus: got nothing, expected medec, agentclinic or aci-bench");
    }
    switch (corpus) {
      case MedecTasks.SOURCE:
        return MedecTasks.build(taxonomy, recipe, conversation, docId, meta).stream().toList();
      case "agentclinic":
        return CaseTasks.build(
            taxonomy,
            perturbations,
            recipe,
            corpus,
            docId,
            OsceCase.parse(Fields.required(meta, "osce_json", "the OSCE case as JSON")),
            meta.get("correct_diagnosis"));
      case "aci-bench":
        return aciBench(docId, text, meta);
      default:
        throw new BadRecordException(
            "corpus: got '" + corpus + "', expected medec, agentclinic or aci-bench");
    }
  }

  private List<BehaviorTask> aciBench(String docId, String text, Map<String, String> meta) {
    Fields.nonBlank("text", text);
    String kind = Fields.required(meta, "kind", "dialogue or note");
    if (kind.equals("dialogue")) {
      return CaseTasks.build(
          taxonomy, perturbations, recipe, "aci-bench", docId, DialogueCase.parse(text), null);
    }
    if (!kind.equals("note")) {
      throw new BadRecordException("meta.kind: got '" + kind + "', expected dialogue or note");
    }
    List<BehaviorTask> tasks = new ArrayList<>();
    taxonomy
        .category(TemporalTasks.CATEGORY)
        .filter(c -> c.drawsFrom("aci-bench"))
        .flatMap(c -> TemporalTasks.build(c, recipe, "aci-bench", docId, text))
        .ifPresent(tasks::add);
    return tasks;
  }

  /**
   * Tasks from one {@code questions} row of MedQA.
   *
   * @throws BadRecordException naming the field, the value got and the value expected
   */
  public List<BehaviorTask> fromQuestion(
      String benchmark,
      String questionId,
      String question,
      List<String> options,
      String gold,
      Integer goldIndex,
      Map<String, String> meta) {
    Fields.nonBlank("question_id", questionId);
    if (!MedQaTasks.SOURCE.equals(benchmark)) {
      throw new BadRecordException("benchmark: got '" + benchmark + "', expected medqa");
    }
    return MedQaTasks.build(taxonomy, recipe, questionId, question, options, gold, goldIndex);
  }
}
