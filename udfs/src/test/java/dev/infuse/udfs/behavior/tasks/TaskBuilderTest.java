package dev.infuse.udfs.behavior.tasks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.infuse.udfs.behavior.BehaviorTask;
import dev.infuse.udfs.behavior.BehaviorType;
import dev.infuse.udfs.behavior.GoldTarget;
import dev.infuse.udfs.behavior.Turn;
import dev.infuse.udfs.ingest.BadRecordException;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class TaskBuilderTest {
  private static final Taxonomy TAXONOMY = DefaultTaxonomy.load();
  private static final List<String> OPTIONS =
      List.of("Pericarditis", "Inferior myocardial infarction", "Aortic dissection");

  private static TaskBuilder builder(long seed) {
    return new TaskBuilder(TAXONOMY, seed, false);
  }

  @Test
  void medecNoteWithAnErrorIsOneErrorCorrectionTask() {
    List<BehaviorTask> tasks =
        builder(1).fromDocument("medec", "medec:ms-1", "ms-1", "text", Fixtures.medecMeta("1"));
    assertThat(tasks).hasSize(1);
    BehaviorTask task = tasks.get(0);
    assertThat(task.category()).isEqualTo("error_correction");
    assertThat(task.type()).isEqualTo(BehaviorType.PROACTIVE);
    assertThat(task.goldTarget())
        .isEqualTo(
            GoldTarget.error(
                2,
                "He is diagnosed with pericarditis.",
                "He is diagnosed with myocardial infarction.",
                null));
    assertThat(task.context()).hasSize(1);
    assertThat(task.context().get(0).speaker()).isEqualTo(Turn.NOTE);
    assertThat(task.context().get(0).text()).contains("2 He is diagnosed with pericarditis.");
    assertThat(task.perturbationId()).isNull();
    assertThat(task.construction()).containsEntry("generator", "medec-annotation");
  }

  @Test
  void medecNoteWithoutAnErrorIsOneRestraintTask() {
    List<BehaviorTask> tasks =
        builder(1).fromDocument("medec", "medec:ms-2", "ms-2", "text", Fixtures.medecMeta("0"));
    assertThat(tasks)
        .singleElement()
        .satisfies(
            t -> {
              assertThat(t.category()).isEqualTo("restraint");
              assertThat(t.goldBehavior()).isEqualTo(BehaviorType.RESTRAINT);
              assertThat(t.goldTarget()).isEqualTo(GoldTarget.none());
            });
  }

  @Test
  void medecConversationKeepsSentenceIds() {
    BehaviorTask task =
        new TaskBuilder(TAXONOMY, 1, true)
            .fromDocument("medec", "medec:ms-1", "ms-1", "text", Fixtures.medecMeta("1"))
            .get(0);
    assertThat(task.context().stream().map(Turn::speaker))
        .contains("attending", "resident", "nurse");
    assertThat(task.context().stream().map(Turn::text))
        .contains("Sentence 2: He is diagnosed with pericarditis.");
  }

  @Test
  void agentClinicCaseGivesEachProactiveCategoryRestraintAndDiagnosis() {
    List<BehaviorTask> tasks =
        builder(7)
            .fromDocument(
                "agentclinic", "agentclinic:abc", "t", "text", Fixtures.agentClinicMeta());
    Map<String, BehaviorTask> byCategory = new TreeMap<>();
    tasks.forEach(t -> byCategory.put(t.category(), t));
    assertThat(byCategory.keySet())
        .containsExactlyInAnyOrder(
            "differential_diagnosis",
            "error_correction",
            "omission_detection",
            "consistency_check",
            "restraint");
    assertThat(byCategory.get("omission_detection").perturbationId()).isEqualTo("omission");
    assertThat(byCategory.get("omission_detection").perturbationVersion()).isEqualTo(1);
    assertThat(byCategory.get("consistency_check").goldTarget().kind())
        .isEqualTo(GoldTarget.CONFLICT);
    assertThat(byCategory.get("error_correction").perturbationId())
        .isIn("error_lab_range", "error_drug_swap");
    assertThat(byCategory.get("error_correction").construction())
        .containsKeys("generator", "generator_version", "change.op", "change.item");
    assertThat(byCategory.get("restraint").goldTarget()).isEqualTo(GoldTarget.none());
    assertThat(byCategory.get("restraint").query())
        .isEqualTo("What is the most appropriate next step?");
    assertThat(byCategory.get("differential_diagnosis").goldTarget().text())
        .isEqualTo("Inferior myocardial infarction");
    String restraintContext = byCategory.get("restraint").context().toString();
    assertThat(restraintContext)
        .doesNotContain("Inferior myocardial infarction")
        .contains("104 bpm");
  }

  @Test
  void aciDialogueKeepsItsSpeakersAndNoteGivesTemporalOrdering() {
    List<BehaviorTask> dialogue =
        builder(3)
            .fromDocument(
                "aci-bench",
                "aci-bench:D2N001:dialogue",
                "t",
                Fixtures.DIALOGUE,
                Fixtures.aciMeta("dialogue"));
    assertThat(dialogue.stream().map(BehaviorTask::category))
        .contains("error_correction", "omission_detection", "consistency_check", "restraint");
    assertThat(dialogue.get(0).context().stream().map(Turn::speaker).distinct())
        .containsExactly("doctor", "patient");

    BehaviorTask order =
        builder(3)
            .fromDocument(
                "aci-bench",
                "aci-bench:D2N001:note",
                "t",
                Fixtures.ACI_NOTE,
                Fixtures.aciMeta("note"))
            .get(0);
    assertThat(order.category()).isEqualTo("temporal_ordering");
    GoldTarget gold = order.goldTarget();
    List<String> inNoteOrder = gold.order().stream().map(i -> gold.events().get(i)).toList();
    assertThat(inNoteOrder)
        .containsExactly(
            "He fell while hiking two weeks ago.",
            "The swelling started the next day and then got worse.",
            "He saw Dr. Jones three days ago, who prescribed ibuprofen.",
            "Today he reports the pain is better.");
    assertThat(gold.events()).isNotEqualTo(inNoteOrder);
  }

  @Test
  void medqaQuestionsSplitIntoAnsweringAndDiagnosis() {
    BehaviorTask diagnosis =
        builder(1)
            .fromQuestion(
                "medqa",
                "medqa:1",
                "A man has chest pain. What is the most likely diagnosis?",
                OPTIONS,
                "B",
                1,
                Map.of())
            .get(0);
    assertThat(diagnosis.category()).isEqualTo("differential_diagnosis");
    assertThat(diagnosis.goldTarget())
        .isEqualTo(GoldTarget.answer("B", "Inferior myocardial infarction"));
    assertThat(diagnosis.context().get(0).text()).contains("B. Inferior myocardial infarction");
    BehaviorTask answer =
        builder(1)
            .fromQuestion("medqa", "medqa:2", "Which drug is best?", OPTIONS, "A", 0, Map.of())
            .get(0);
    assertThat(answer.category()).isEqualTo("question_answering");
    assertThat(answer.type()).isEqualTo(BehaviorType.REACTIVE);
  }

  @Test
  void buildingTwiceGivesEqualTasksAndIdsDependOnTheSeed() {
    List<BehaviorTask> once =
        builder(11)
            .fromDocument("agentclinic", "agentclinic:abc", "t", "x", Fixtures.agentClinicMeta());
    List<BehaviorTask> twice =
        builder(11)
            .fromDocument("agentclinic", "agentclinic:abc", "t", "x", Fixtures.agentClinicMeta());
    assertThat(twice).isEqualTo(once);
    List<BehaviorTask> other =
        builder(12)
            .fromDocument("agentclinic", "agentclinic:abc", "t", "x", Fixtures.agentClinicMeta());
    assertThat(other.get(0).taskId()).isNotEqualTo(once.get(0).taskId());
  }

  @Test
  void aDifferentSeedCanChooseADifferentPerturbation() {
    Set<String> choices = new HashSet<>();
    for (long seed = 0; seed < 30; seed++) {
      builder(seed)
          .fromDocument("agentclinic", "agentclinic:abc", "t", "x", Fixtures.agentClinicMeta())
          .stream()
          .filter(t -> t.category().equals("error_correction"))
          .forEach(
              t -> choices.add(t.perturbationId() + " " + t.construction().get("change.item")));
    }
    assertThat(choices.stream().map(c -> c.split(" ")[0]).distinct())
        .containsExactlyInAnyOrder("error_lab_range", "error_drug_swap");
    assertThat(choices).hasSizeGreaterThan(3);
  }

  @Test
  void malformedRecordsAreRejectedWithTheirReason() {
    Map<String, String> noFlag = new TreeMap<>(Fixtures.medecMeta("1"));
    noFlag.remove("error_flag");
    assertRejected(
        () -> builder(1).fromDocument("medec", "medec:x", "x", "t", noFlag),
        "meta.error_flag: got nothing, expected 0 or 1");
    Map<String, String> badFlag = new TreeMap<>(Fixtures.medecMeta("1"));
    badFlag.put("error_flag", "yes");
    assertRejected(
        () -> builder(1).fromDocument("medec", "medec:x", "x", "t", badFlag),
        "meta.error_flag: got 'yes', expected 0 or 1");
    Map<String, String> badId = new TreeMap<>(Fixtures.medecMeta("1"));
    badId.put("error_sentence_id", "-1");
    assertRejected(
        () -> builder(1).fromDocument("medec", "medec:x", "x", "t", badId),
        "meta.error_sentence_id: got '-1', expected a number >= 0");
    assertRejected(
        () ->
            builder(1)
                .fromDocument(
                    "agentclinic", "agentclinic:x", "x", "t", Map.of("osce_json", "[1, 2]")),
        "meta.osce_json: got '[1, 2]', expected the OSCE case as a JSON object");
    assertRejected(
        () ->
            builder(1)
                .fromDocument(
                    "aci-bench", "aci:x", "x", "hello there", Fixtures.aciMeta("dialogue")),
        "expected [speaker] tagged turns");
    assertRejected(
        () -> builder(1).fromDocument("aci-bench", "aci:x", "x", "t", Fixtures.aciMeta("summary")),
        "meta.kind: got 'summary', expected dialogue or note");
    assertRejected(
        () -> builder(1).fromDocument("mimic", "mimic:x", "x", "t", Map.of()),
        "corpus: got 'mimic', expected medec, agentclinic or aci-bench");
    assertRejected(
        () -> builder(1).fromQuestion("medqa", "medqa:x", "Q?", OPTIONS, "D", 3, Map.of()),
        "gold: got 'D', expected one of [A, B, C]");
    assertRejected(
        () -> builder(1).fromQuestion("medqa", "medqa:x", "Q?", OPTIONS, "A", 2, Map.of()),
        "gold_index: got 2, expected 0");
    assertRejected(
        () -> builder(1).fromQuestion("gsm8k", "g:x", "Q?", OPTIONS, "A", 0, Map.of()),
        "benchmark: got 'gsm8k', expected medqa");
  }

  private static void assertRejected(Runnable build, String reason) {
    assertThatThrownBy(build::run)
        .isInstanceOf(BadRecordException.class)
        .hasMessageContaining(reason);
  }
}
