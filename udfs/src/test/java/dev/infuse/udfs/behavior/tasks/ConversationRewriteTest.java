package dev.infuse.udfs.behavior.tasks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.infuse.udfs.behavior.BehaviorTask;
import dev.infuse.udfs.behavior.GoldTarget;
import dev.infuse.udfs.behavior.Turn;
import dev.infuse.udfs.behavior.score.BehaviorPrompts;
import dev.infuse.udfs.generate.GenerationTask;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The LLM conversation's parser and check, on the fixtures' MEDEC note and AgentClinic case: a
 * faithful rewrite (every line presented by a clinician) is used; a rewrite that loses or adds what
 * the gold label rests on is rejected with the reason.
 */
class ConversationRewriteTest {
  private static final Taxonomy TAXONOMY = DefaultTaxonomy.load();
  private static final String PROMPT = "behavior-conversation@1";
  private static final String MODEL = "openai:m";

  /** A faithful rewrite: an opening turn, then each line of the context, speakers alternating. */
  static String faithful(BehaviorTask task) {
    List<String> lines = new ArrayList<>();
    lines.add("attending: Let's go over this case.");
    int i = 0;
    for (String line : BehaviorPrompts.context(task.context()).split("\n")) {
      if (line.isBlank()) {
        continue;
      }
      String text =
          line.strip().replaceFirst("^note: ", "").replaceFirst("^(\\d+) ", "Sentence $1: ");
      lines.add((i++ % 2 == 0 ? "resident: " : "nurse: ") + text);
    }
    return String.join("\n", lines);
  }

  private static BehaviorTask medecError() {
    return new TaskBuilder(TAXONOMY, 1, false)
        .fromDocument("medec", "medec:ms-1", "ms-1", "text", Fixtures.medecMeta("1"))
        .get(0);
  }

  private static Map<String, BehaviorTask> agentClinic() {
    Map<String, BehaviorTask> byCategory = new TreeMap<>();
    new TaskBuilder(TAXONOMY, 7, false)
        .fromDocument("agentclinic", "agentclinic:abc", "t", "text", Fixtures.agentClinicMeta())
        .forEach(t -> byCategory.put(t.category(), t));
    return byCategory;
  }

  private static ConversationRewrite.Outcome apply(BehaviorTask task, String reply) {
    return ConversationRewrite.apply(task, reply, PROMPT, MODEL);
  }

  @Test
  void aFaithfulRewriteReplacesTheContextAndSaysSo() {
    BehaviorTask task = medecError();
    ConversationRewrite.Outcome outcome = apply(task, faithful(task));
    assertThat(outcome.used()).as(outcome.reason()).isTrue();
    BehaviorTask rewritten = outcome.task();
    assertThat(rewritten.context())
        .containsExactly(
            new Turn("attending", "Let's go over this case."),
            new Turn("resident", "Sentence 0: A 60-year-old man has chest pain."),
            new Turn("nurse", "Sentence 1: His ECG shows ST elevation."),
            new Turn("resident", "Sentence 2: He is diagnosed with pericarditis."));
    assertThat(rewritten.construction())
        .containsEntry("conversation", "llm:behavior-conversation@1")
        .containsEntry("conversation.generator", "openai:m")
        .containsEntry("conversation.check", "conversation-check@v1")
        .containsEntry("form", "conversation")
        .containsEntry("generator", "medec-annotation");
    assertThat(rewritten.taskId()).isEqualTo(task.taskId());
    assertThat(rewritten.goldTarget()).isEqualTo(task.goldTarget());
  }

  @Test
  void anErrorMustStayWrongAndItsCorrectionMustNotAppear() {
    BehaviorTask task = medecError();
    String corrected = faithful(task).replace("pericarditis", "myocardial infarction");
    ConversationRewrite.Outcome fixed = apply(task, corrected);
    assertThat(fixed.used()).isFalse();
    assertThat(fixed.reason())
        .isEqualTo("the error is gone: 'pericarditis' of the wrong text is missing");
    assertThat(fixed.task().context()).isEqualTo(task.context());
    assertThat(fixed.task().construction())
        .containsEntry(
            "conversation",
            "rejected: the error is gone: 'pericarditis' of the wrong text is missing")
        .containsEntry("form", "note");
    String hinted = faithful(task) + "\nattending: Or a myocardial infarction?";
    assertThat(apply(task, hinted).reason())
        .isEqualTo("the correction appears: 'myocardial' is not in the case");
    String unlabelled = faithful(task).replace("Sentence 2: He", "Finally, 2 he");
    assertThat(apply(task, unlabelled).reason())
        .isEqualTo("sentence 2 (the wrong one) is no longer labelled 'Sentence 2'");
  }

  @Test
  void aConflictKeepsBothValuesAnOmissionStaysMissingAndTheAnswerStaysUnsaid() {
    Map<String, BehaviorTask> tasks = agentClinic();
    BehaviorTask conflict = tasks.get("consistency_check");
    assertThat(apply(conflict, faithful(conflict)).used()).isTrue();
    GoldTarget gold = conflict.goldTarget();
    // A model that resolves the contradiction: the second statement is dropped.
    String second = gold.item() + ": " + gold.second();
    String resolved =
        String.join("\n", faithful(conflict).lines().filter(l -> !l.endsWith(second)).toList());
    assertThat(resolved).isNotEqualTo(faithful(conflict));
    java.util.regex.Matcher digits =
        java.util.regex.Pattern.compile("\\d+(?:\\.\\d+)?").matcher(gold.second());
    assertThat(digits.find()).isTrue();
    String number = digits.group();
    assertThat(apply(conflict, resolved).reason())
        .isEqualTo("a conflicting value is gone: '" + number + "' of '" + gold.second() + "'");

    BehaviorTask omission = tasks.get("omission_detection");
    assertThat(apply(omission, faithful(omission)).used()).isTrue();
    String value = omission.goldTarget().value();
    String filledIn = faithful(omission) + "\nnurse: " + omission.goldTarget().item() + " " + value;
    assertThat(apply(omission, filledIn).reason()).startsWith("the omitted value appears: '");

    BehaviorTask diagnosis = tasks.get("differential_diagnosis");
    assertThat(apply(diagnosis, faithful(diagnosis)).used()).isTrue();
    String leaked =
        faithful(diagnosis) + "\nattending: Looks like an inferior myocardial infarction.";
    assertThat(apply(diagnosis, leaked).reason())
        .isEqualTo("the answer appears: 'Inferior myocardial infarction'");
  }

  @Test
  void everyNumberStaysAndNoneIsAdded() {
    BehaviorTask restraint = agentClinic().get("restraint");
    String faithful = faithful(restraint);
    assertThat(faithful).contains("104 bpm");
    assertThat(apply(restraint, faithful.replace("104 bpm", "a fast pulse")).reason())
        .isEqualTo("a number of the case is missing: '104'");
    assertThat(apply(restraint, faithful + "\nnurse: Repeat pulse 96.").reason())
        .isEqualTo("adds a number the case does not have: '96'");
  }

  @Test
  void theReplyMustBeTurnsOfAtLeastTwoSpeakers() {
    BehaviorTask task = medecError();
    assertThat(apply(task, "Here is the conversation:\n" + faithful(task)).reason())
        .isEqualTo("line 1 is not 'speaker: text': 'Here is the conversation:'");
    assertThat(apply(task, "resident: Sentence 0 to 2 as written.").reason())
        .isEqualTo("got 1 turn(s), expected at least two");
    assertThat(
            apply(task, faithful(task).replaceAll("(?m)^(attending|nurse):", "resident:")).reason())
        .isEqualTo("one speaker only (resident), expected a conversation among clinicians");
    assertThat(ConversationRewrite.parse("**Nurse:** Pulse 80.\n\n- **Attending**: Thanks."))
        .containsExactly(new Turn("nurse", "Pulse 80."), new Turn("attending", "Thanks."));
    assertThatThrownBy(
            () -> ConversationRewrite.parse("The patient, seen in clinic today: stable."))
        .hasMessageStartingWith("line 1 is not 'speaker: text'");
  }

  @Test
  void tasksReadByPositionAreNotSent() {
    BehaviorTask medqa =
        new TaskBuilder(TAXONOMY, 1, false)
            .fromQuestion(
                "medqa", "medqa:2", "Which drug is best?", List.of("a", "b"), "A", 0, Map.of())
            .get(0);
    assertThat(ConversationRewrite.notSent(medqa)).contains("the options are read by letter");
    BehaviorTask order =
        new TaskBuilder(TAXONOMY, 1, false)
            .fromDocument("aci-bench", "aci:1", "t", Fixtures.ACI_NOTE, Fixtures.aciMeta("note"))
            .get(0);
    assertThat(ConversationRewrite.notSent(order))
        .contains("the events are read by the number they are shown with");
    assertThat(ConversationRewrite.keptUnsent(order, "why").construction())
        .containsEntry("conversation", "not sent: why");
    BehaviorTask task = medecError();
    assertThat(ConversationRewrite.notSent(task)).isEmpty();
    assertThat(ConversationRewrite.variables(task))
        .containsOnlyKeys(GenerationTask.CONTEXT)
        .containsEntry(GenerationTask.CONTEXT, BehaviorPrompts.context(task.context()));
  }
}
