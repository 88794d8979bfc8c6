package dev.infuse.udfs.behavior.score;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.infuse.udfs.behavior.BehaviorTask;
import dev.infuse.udfs.behavior.BehaviorType;
import dev.infuse.udfs.behavior.GoldTarget;
import dev.infuse.udfs.behavior.Turn;
import dev.infuse.udfs.generate.GenerationTask;
import dev.infuse.udfs.llm.ChatRequest;
import dev.infuse.udfs.llm.ExtractiveClient;
import dev.infuse.udfs.llm.GenerationParams;
import dev.infuse.udfs.llm.LlmBackend;
import dev.infuse.udfs.llm.LlmCallException;
import dev.infuse.udfs.llm.LlmSettings;
import dev.infuse.udfs.prompt.PromptTemplate;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;

class ExtractiveClinicianTest {
  private static final ExtractiveClient CLIENT =
      new ExtractiveClient(
          new LlmSettings(
              LlmBackend.EXTRACTIVE, null, "extractive", null, 4, 30, 60, 1, 100, 1000));
  private static final PromptTemplate ASSISTANT =
      BehaviorFixtures.template("behavior-assistant.yaml");

  private static String respond(BehaviorTask task) {
    return ExtractiveClinician.respond(BehaviorPrompts.task(task), new SplittableRandom(1));
  }

  @Test
  void aFindingWithTwoValuesIsFlaggedAsAConflictTheScorersReadBack() {
    BehaviorTask task =
        BehaviorFixtures.task(
            "conflict",
            BehaviorType.PROACTIVE,
            List.of(
                new Turn("nurse", "Her pulse is 88/min and she is comfortable."),
                new Turn("doctor", "On my exam the heart rate is 120/min.")),
            null,
            GoldTarget.conflict("pulse", "88/min", "120/min"));

    String reply = respond(task);

    assertThat(reply).startsWith("<proactive> Conflict: pulse: 88 vs 120.");
    assertThat(reply).contains("no model was run");
    assertThat(new ChainedBehaviorClassifier().classify(reply).behavior())
        .isEqualTo(BehaviorType.PROACTIVE);
    assertThat(ContentScorer.contentCorrect(task.goldTarget(), reply)).isTrue();
  }

  @Test
  void anImplausibleValueInANumberedNoteIsFlaggedAsThatSentencesError() {
    String note =
        "0 A 30-year-old man comes to the clinic.\n"
            + "1 His temperature is 37°C (98.6°F).\n"
            + "2 His pulse is 400/min and blood pressure is 120/80 mm\n"
            + "Hg.\n"
            + "3 Metformin is started.";
    BehaviorTask task =
        BehaviorFixtures.task(
            "error_correction",
            BehaviorType.PROACTIVE,
            note,
            null,
            GoldTarget.error(2, "His pulse is 400/min", "His pulse is 100/min", "pulse"));

    String reply = respond(task);

    assertThat(reply)
        .startsWith(
            "<proactive> Sentence 2 is wrong: His pulse is 400/min and blood pressure is 120/80"
                + " mm Hg. The pulse 400 is outside the plausible range 20–250 /min.");
    MedecPrediction prediction = MedecResponseParser.parse(reply);
    assertThat(prediction.errorFlag()).isEqualTo(1);
    assertThat(prediction.sentenceId()).isEqualTo(2);
    assertThat(prediction.correction()).isEqualTo(MedecMetrics.NA);
    assertThat(ContentScorer.contentCorrect(task.goldTarget(), reply)).isTrue();
  }

  @Test
  void aConsistentPlausibleCaseWithoutAQueryGetsRestraint() {
    BehaviorTask task =
        BehaviorFixtures.task(
            "restraint",
            BehaviorType.RESTRAINT,
            "Her temperature is 36.8°C, pulse is 72/min, and blood pressure is 118/76 mm Hg."
                + " Sodium is 140 mEq/L.",
            null,
            GoldTarget.none());

    String reply = respond(task);

    assertThat(reply).startsWith("<restraint> Nothing in the record needs flagging.");
    assertThat(reply).contains("Model-free");
    assertThat(new RuleBehaviorClassifier().classify(reply).behavior())
        .isEqualTo(BehaviorType.RESTRAINT);
  }

  @Test
  void aQueryWithOptionsIsAnsweredWithTheOptionClosestToTheContext() {
    BehaviorTask task =
        BehaviorFixtures.task(
            "answer",
            BehaviorType.REACTIVE,
            "A 54-year-old man with type 2 diabetes has an HbA1c of 8.1%. Pulse is 70/min.",
            "Which drug is first line?\nA. Aspirin\nB. Metformin for type 2 diabetes\nC. Warfarin",
            GoldTarget.answer("B", "Metformin for type 2 diabetes"));

    String reply = respond(task);

    assertThat(reply).startsWith("<reactive> Answer: B. Metformin for type 2 diabetes");
    assertThat(ContentScorer.contentCorrect(task.goldTarget(), reply)).isTrue();
  }

  @Test
  void anOsceCaseStatingOneVitalTwiceIsAConflictThoughItsLinesAreLabelled() {
    // Labelled lines ("Blood Pressure: ...") are content; only the turn's lowercase speaker id is
    // stripped.
    BehaviorTask task =
        BehaviorFixtures.task(
            "conflict",
            BehaviorType.PROACTIVE,
            List.of(
                new Turn(
                    "note",
                    "Physical Examination Findings > Vital Signs\n  Pulse: 98/min\n"
                        + "  Blood Pressure: 126/88 mm Hg\n  Blood Pressure: 76/53 mm Hg")),
            "What is the most appropriate next step?",
            GoldTarget.conflict("Blood Pressure", "126/88 mm Hg", "76/53 mm Hg"));

    String reply = respond(task);

    assertThat(reply).startsWith("<proactive> Conflict: blood pressure: 126/88 vs 76/53.");
    assertThat(ContentScorer.contentCorrect(task.goldTarget(), reply)).isTrue();
  }

  @Test
  void optionsListedInTheContextAreAnsweredAndAManagementQueryOnACleanRecordIsRestraint() {
    BehaviorTask question =
        BehaviorFixtures.task(
            "answer",
            BehaviorType.REACTIVE,
            "A 54-year-old man with type 2 diabetes has an HbA1c of 8.1%. Which drug is first"
                + " line?\n\nA. Aspirin\nB. Metformin for type 2 diabetes\nC. Warfarin",
            "Answer with the letter of the best option.",
            GoldTarget.answer("B", "Metformin for type 2 diabetes"));
    assertThat(respond(question)).startsWith("<reactive> Answer: B. Metformin for type 2 diabetes");

    BehaviorTask clean =
        BehaviorFixtures.task(
            "restraint",
            BehaviorType.RESTRAINT,
            "A 30-year-old woman has a cough. Her pulse is 80/min.",
            "What is the most appropriate next step?",
            GoldTarget.none());
    String reply = respond(clean);
    assertThat(reply).startsWith("<restraint> Nothing in the record needs flagging. Answer: ");
    assertThat(new RuleBehaviorClassifier().classify(reply).behavior())
        .isEqualTo(BehaviorType.RESTRAINT);
  }

  @Test
  void theDecisionIsDeterministicWhateverTheStream() {
    Map<String, String> map =
        BehaviorPrompts.task(
            BehaviorFixtures.task(
                "restraint", BehaviorType.RESTRAINT, "Pulse is 70/min.", "", GoldTarget.none()));
    assertThat(ExtractiveClinician.respond(map, new SplittableRandom(1)))
        .isEqualTo(ExtractiveClinician.respond(map, new SplittableRandom(99)));
    assertThatThrownBy(
            () ->
                ExtractiveClinician.respond(
                    Map.of(GenerationTask.KIND, GenerationTask.BEHAVE), new SplittableRandom(1)))
        .hasMessageContaining("context");
  }

  @Test
  void theTaskMapCarriesContextAndQueryOnlyNeverTheGold() {
    BehaviorTask task =
        BehaviorFixtures.task(
            "error_correction",
            BehaviorType.PROACTIVE,
            List.of(new Turn("doctor", "How are you?"), new Turn("patient", "Tired.")),
            "  What next?  ",
            GoldTarget.error(1, "SECRET-WRONG", "SECRET-FIX", "SECRET-ITEM"));

    Map<String, String> map = BehaviorPrompts.task(task);

    assertThat(map)
        .containsExactly(
            Map.entry(GenerationTask.KIND, GenerationTask.BEHAVE),
            Map.entry(GenerationTask.CONTEXT, "doctor: How are you?\npatient: Tired."),
            Map.entry(GenerationTask.QUERY, "What next?"));
    String rendered = BehaviorPrompts.messages(ASSISTANT, task).toString();
    assertThat(rendered)
        .contains("doctor: How are you?", "Question: What next?", "<proactive>")
        .doesNotContain("SECRET");
  }

  @Test
  void theExtractiveBackendAnswersBehaveAndRefusesToFakeAJudge() throws Exception {
    BehaviorTask task =
        BehaviorFixtures.task(
            "restraint", BehaviorType.RESTRAINT, "Pulse is 70/min.", null, GoldTarget.none());
    GenerationParams params = new GenerationParams(0, 0.7, 1.0, 1, null, 3L, false, null);
    ChatRequest request = BehaviorPrompts.request(ASSISTANT, task, "extractive", params);

    assertThat(request.messages().get(1).content()).contains("No question was asked.");
    assertThat(CLIENT.complete(request).get().text()).isEqualTo(respond(task));

    ChatRequest judge =
        JudgeBehaviorClassifier.request(
            BehaviorFixtures.template("behavior-judge.yaml"),
            task,
            "<restraint> Fine.",
            "x",
            params);
    assertThatThrownBy(() -> CLIENT.complete(judge).get())
        .isInstanceOf(ExecutionException.class)
        .hasCauseInstanceOf(LlmCallException.class)
        .hasMessageContaining("behavior_judge has no extractive implementation");
    assertThatThrownBy(
            () ->
                BehaviorPrompts.request(
                    BehaviorFixtures.template("behavior-judge.yaml"), task, "x", params))
        .hasMessageContaining("expected behavior-assistant");
  }
}
