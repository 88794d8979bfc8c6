package dev.infuse.udfs.behavior.sft;

import static org.assertj.core.api.Assertions.assertThat;

import dev.infuse.udfs.behavior.BehaviorTask;
import dev.infuse.udfs.behavior.BehaviorType;
import dev.infuse.udfs.behavior.GoldTarget;
import dev.infuse.udfs.behavior.score.BehaviorFixtures;
import dev.infuse.udfs.behavior.score.BehaviorTokenClassifier;
import dev.infuse.udfs.behavior.score.ContentScorer;
import dev.infuse.udfs.behavior.score.MedecPrediction;
import dev.infuse.udfs.behavior.score.MedecResponseParser;
import dev.infuse.udfs.llm.ChatMessage;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SftTargetsTest {
  private static final BehaviorTokens TOKENS = BehaviorTokens.defaults();
  private static final String NOTE = "0 A 24-year-old woman.\n1 Culture tests indicate Neisseria.";

  private static BehaviorTask task(
      String category, BehaviorType type, String query, GoldTarget gold) {
    return BehaviorFixtures.task(category, type, NOTE, query, gold);
  }

  private static final List<BehaviorTask> EVERY_KIND =
      List.of(
          task(
              "error_correction",
              BehaviorType.PROACTIVE,
              null,
              GoldTarget.error(
                  1,
                  "Culture tests indicate Neisseria.",
                  "Culture tests indicate Trichomonas vaginalis.",
                  "organism")),
          task(
              "omission",
              BehaviorType.PROACTIVE,
              null,
              GoldTarget.omission("allergy history", "none")),
          task(
              "conflict",
              BehaviorType.PROACTIVE,
              null,
              GoldTarget.conflict("pulse", "88/min", "120/min")),
          task(
              "order",
              BehaviorType.REACTIVE,
              "In what order?",
              GoldTarget.order(List.of("admission", "surgery", "chest pain"), List.of(2, 0, 1))),
          task(
              "answer",
              BehaviorType.REACTIVE,
              "Which drug?",
              GoldTarget.answer("C", "Metronidazole")),
          task("restraint", BehaviorType.RESTRAINT, null, GoldTarget.none()));

  @Test
  void eachKindHasItsFixedFormat() {
    assertThat(EVERY_KIND.stream().map(t -> SftTargets.target(t, TOKENS)).toList())
        .containsExactly(
            "<proactive> Sentence 1 is wrong: Culture tests indicate Neisseria. It should read:"
                + " Culture tests indicate Trichomonas vaginalis.",
            "<proactive> Missing: allergy history.",
            "<proactive> Conflict: pulse: 88/min vs 120/min.",
            "<reactive> Order: chest pain; admission; surgery.",
            "<reactive> Answer: C. Metronidazole",
            "<restraint> Nothing in the record needs flagging.");
    GoldTarget noneWithAnswer =
        new GoldTarget("none", null, null, null, null, null, null, null, null, null, "B", "Rest");
    assertThat(
            SftTargets.target(
                task("restraint", BehaviorType.RESTRAINT, "What now?", noneWithAnswer), TOKENS))
        .isEqualTo("<restraint> Nothing in the record needs flagging. Answer: B. Rest");
    assertThat(SftTargets.tag()).isEqualTo("behavior-sft-target@v1");
  }

  @Test
  void everyTargetReadsBackAsItsGoldBehaviourWithItsContentRight() {
    BehaviorTokenClassifier classifier = new BehaviorTokenClassifier(TOKENS);
    for (BehaviorTask task : EVERY_KIND) {
      String target = SftTargets.target(task, TOKENS);
      assertThat(classifier.classify(target).behavior()).as(target).isEqualTo(task.goldBehavior());
      Boolean content = ContentScorer.contentCorrect(task.goldTarget(), target);
      if (task.goldTarget().kind().equals(GoldTarget.NONE)) {
        assertThat(content).as(target).isNull();
      } else {
        assertThat(content).as(target).isTrue();
      }
    }
    String error = SftTargets.target(EVERY_KIND.get(0), TOKENS);
    assertThat(MedecResponseParser.parse(error))
        .isEqualTo(new MedecPrediction(1, 1, "Culture tests indicate Trichomonas vaginalis."));
    assertThat(MedecResponseParser.parse(SftTargets.target(EVERY_KIND.get(5), TOKENS)))
        .isEqualTo(MedecPrediction.noError());
  }

  @Test
  void examplesAreThePromptThenTheTargetWithConfiguredTokensThroughout() {
    BehaviorTokens custom =
        BehaviorTokens.of(Map.of("reactive", "[R]", "proactive", "[P]", "restraint", "[S]"));
    SftExamples examples = new SftExamples(BehaviorFixtures.template("behavior-assistant.yaml"));
    List<ChatMessage> messages = examples.messages(EVERY_KIND.get(1), custom);

    assertThat(messages)
        .extracting(ChatMessage::role)
        .containsExactly("system", "user", "assistant");
    assertThat(messages.get(0).content())
        .contains("[P] when you flag")
        .doesNotContain("<proactive>");
    assertThat(messages.get(1).content())
        .contains("note: 0 A 24-year-old woman.")
        .doesNotContain("allergy");
    assertThat(messages.get(2).content()).isEqualTo("[P] Missing: allergy history.");
    assertThat(new BehaviorTokenClassifier(custom).classify(messages.get(2).content()).behavior())
        .isEqualTo(BehaviorType.PROACTIVE);
    assertThat(examples.versions()).isEqualTo("behavior-assistant@v1,behavior-sft-target@v1");
  }
}
