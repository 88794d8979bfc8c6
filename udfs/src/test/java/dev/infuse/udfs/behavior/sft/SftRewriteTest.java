package dev.infuse.udfs.behavior.sft;

import static org.assertj.core.api.Assertions.assertThat;

import dev.infuse.udfs.behavior.BehaviorTask;
import dev.infuse.udfs.behavior.BehaviorType;
import dev.infuse.udfs.behavior.GoldTarget;
import dev.infuse.udfs.behavior.score.BehaviorFixtures;
import dev.infuse.udfs.generate.GenerationTask;
import dev.infuse.udfs.llm.ChatMessage;
import dev.infuse.udfs.prompt.PromptTemplate;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The check a model's rewrite of a BehaviorSFT target passes before it replaces the template. */
class SftRewriteTest {
  private static final BehaviorTokens TOKENS = BehaviorTokens.defaults();
  private static final String NOTE = "0 A 24-year-old woman.\n1 Culture tests indicate Neisseria.";
  private static final BehaviorTask ERROR =
      BehaviorFixtures.task(
          "error_correction",
          BehaviorType.PROACTIVE,
          NOTE,
          null,
          GoldTarget.error(
              1,
              "Culture tests indicate Neisseria.",
              "Culture tests indicate Trichomonas vaginalis.",
              null));
  private static final BehaviorTask RESTRAINT =
      BehaviorFixtures.task("restraint", BehaviorType.RESTRAINT, NOTE, null, GoldTarget.none());
  private static final BehaviorTask ANSWER =
      BehaviorFixtures.task(
          "question_answering",
          BehaviorType.REACTIVE,
          NOTE,
          "Which drug?",
          GoldTarget.answer("C", "Metronidazole"));

  @Test
  void aRewriteNamingTheSameContentPasses() {
    assertThat(
            SftRewrite.problem(
                ERROR,
                "Looking at the note, sentence 1 is wrong: the cultures point to Trichomonas"
                    + " vaginalis, not Neisseria.",
                TOKENS))
        .isEmpty();
    assertThat(
            SftRewrite.problem(
                RESTRAINT, "I went through the record; nothing in it needs flagging.", TOKENS))
        .isEmpty();
    assertThat(SftRewrite.problem(ANSWER, "Metronidazole is the drug. Answer: C.", TOKENS))
        .isEmpty();
  }

  @Test
  void aRewriteThatLosesTheContentWritesATokenOrFlagsWrongly() {
    assertThat(SftRewrite.problem(ERROR, "The note looks worrying; please review it.", TOKENS))
        .contains(
            "not content-correct (ContentScorer v1): it does not name the gold error's content");
    assertThat(SftRewrite.problem(ANSWER, "Answer: B. Doxycycline.", TOKENS))
        .contains(
            "not content-correct (ContentScorer v1): it does not name the gold answer's content");
    assertThat(SftRewrite.problem(ERROR, "<proactive> Sentence 1 is wrong.", TOKENS))
        .contains("the rewrite writes the behavioural token <proactive> itself");
    BehaviorTokens custom =
        BehaviorTokens.of(Map.of("reactive", "[R]", "proactive", "[P]", "restraint", "[S]"));
    assertThat(SftRewrite.problem(RESTRAINT, "[S] Nothing needs flagging.", custom))
        .contains("the rewrite writes the behavioural token [S] itself");
    assertThat(SftRewrite.problem(RESTRAINT, "There is an error in sentence 1.", TOKENS))
        .contains("reads as a flag (rule@v1) where the gold behaviour is restraint");
    assertThat(SftRewrite.problem(RESTRAINT, "  ", TOKENS)).contains("the rewrite is blank");
  }

  @Test
  void theRequestCarriesTheTemplateTextAndTheTargetKeepsTheGoldToken() {
    Map<String, String> vars = SftRewrite.variables(ANSWER);
    assertThat(vars)
        .containsOnlyKeys(GenerationTask.CONTEXT, GenerationTask.QUERY, GenerationTask.TARGET)
        .containsEntry(GenerationTask.TARGET, "Answer: C. Metronidazole")
        .containsEntry(GenerationTask.QUERY, "Which drug?");
    assertThat(GenerationTask.variables(GenerationTask.BEHAVIOR_SFT_REWRITE))
        .containsAll(vars.keySet());
    PromptTemplate assistant = BehaviorFixtures.template("behavior-assistant.yaml");
    List<ChatMessage> chat =
        new SftExamples(assistant).messages(ANSWER, TOKENS, "  Metronidazole. Answer: C.  ");
    assertThat(chat.get(chat.size() - 1))
        .isEqualTo(new ChatMessage("assistant", "<reactive> Metronidazole. Answer: C."));
    assertThat(new SftExamples(assistant).messages(ANSWER, TOKENS))
        .isEqualTo(new SftExamples(assistant).messages(ANSWER, TOKENS, SftTargets.text(ANSWER)));
  }
}
