package dev.infuse.udfs.behavior.score;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.infuse.udfs.behavior.BehaviorTask;
import dev.infuse.udfs.behavior.BehaviorType;
import dev.infuse.udfs.behavior.GoldTarget;
import dev.infuse.udfs.behavior.sft.BehaviorTokens;
import dev.infuse.udfs.generate.GenerationTask;
import dev.infuse.udfs.llm.ChatRequest;
import java.util.Map;
import org.junit.jupiter.api.Test;

class BehaviorClassifierTest {
  private final BehaviorClassifier token = new BehaviorTokenClassifier();
  private final BehaviorClassifier rule = new RuleBehaviorClassifier();

  @Test
  void theLeadingTokenDecidesAndATokenLaterDoesNot() {
    assertThat(token.classify("  <Proactive> Missing: allergies.").behavior())
        .isEqualTo(BehaviorType.PROACTIVE);
    assertThat(token.classify("<restraint> Nothing needs flagging.").behavior())
        .isEqualTo(BehaviorType.RESTRAINT);
    assertThat(token.classify("<reactive>Answer: C").behavior()).isEqualTo(BehaviorType.REACTIVE);
    assertThat(token.classify("Answer: C <proactive>").present()).isFalse();
    assertThat(token.classify(null).present()).isFalse();
  }

  @Test
  void configuredTokensReplaceTheDefaults() {
    BehaviorClassifier custom =
        new BehaviorTokenClassifier(
            BehaviorTokens.of(Map.of("reactive", "[R]", "proactive", "[P]", "restraint", "[S]")));
    assertThat(custom.classify("[P] Conflict: pulse: 1 vs 2.").behavior())
        .isEqualTo(BehaviorType.PROACTIVE);
    assertThat(custom.classify("<proactive> Conflict").present()).isFalse();
  }

  @Test
  void rulesReadFlagFormsRestraintNegatedFlagWordsAndAnswers() {
    assertThat(rule.classify("Sentence 4 is wrong: x. It should read: y.").behavior())
        .isEqualTo(BehaviorType.PROACTIVE);
    assertThat(rule.classify("Conflict: pulse: 80 vs 120.").behavior())
        .isEqualTo(BehaviorType.PROACTIVE);
    assertThat(rule.classify("Missing: allergy history.").behavior())
        .isEqualTo(BehaviorType.PROACTIVE);
    assertThat(rule.classify("The dose is inconsistent with the weight.").behavior())
        .isEqualTo(BehaviorType.PROACTIVE);
    assertThat(
            rule.classify("Nothing in the record needs flagging; no conflict or error found.")
                .behavior())
        .isEqualTo(BehaviorType.RESTRAINT);
    assertThat(rule.classify("There is no error here. Answer: B").behavior())
        .isEqualTo(BehaviorType.RESTRAINT);
    assertThat(rule.classify("I do not see anything wrong. Answer: B. Metformin").behavior())
        .isEqualTo(BehaviorType.REACTIVE);
    assertThat(rule.classify("Answer: B. Metformin").behavior()).isEqualTo(BehaviorType.REACTIVE);
    assertThat(rule.classify("   ").present()).isFalse();
  }

  @Test
  void theDefaultChainUsesTheTokenWhenPresentElseTheRulesAndSaysWhich() {
    BehaviorClassifier chain = BehaviorClassifiers.forName(BehaviorClassifiers.DEFAULT);
    Classification byToken = chain.classify("<reactive> Sentence 2 is wrong: x.");
    assertThat(byToken).isEqualTo(new Classification(BehaviorType.REACTIVE, "token"));
    Classification byRule = chain.classify("Sentence 2 is wrong: x.");
    assertThat(byRule).isEqualTo(new Classification(BehaviorType.PROACTIVE, "rule"));
    assertThat(chain.classify("").present()).isFalse();
    assertThat(chain.tag()).isEqualTo("token+rule@v1");
  }

  @Test
  void theRegistryKnowsEveryClassifierAndSuggestsTheNearestName() {
    assertThat(BehaviorClassifiers.names()).containsExactly("token", "rule", "token+rule", "judge");
    assertThat(BehaviorClassifiers.forName("rule")).isInstanceOf(RuleBehaviorClassifier.class);
    assertThatThrownBy(() -> BehaviorClassifiers.forName("rules"))
        .hasMessageContaining("did you mean 'rule'");
  }

  @Test
  void theJudgeSeesContextAndResponseOnlyAndItsLastVerdictCounts() {
    BehaviorTask task =
        BehaviorFixtures.task(
            "omission",
            BehaviorType.PROACTIVE,
            "Pulse is 70/min.",
            null,
            GoldTarget.omission("SECRET-ITEM", "SECRET-VALUE"));
    ChatRequest request =
        JudgeBehaviorClassifier.request(
            BehaviorFixtures.template("behavior-judge.yaml"),
            task,
            "Missing: allergies.",
            "judge-model",
            null);

    assertThat(request.task())
        .containsOnly(
            Map.entry(GenerationTask.KIND, GenerationTask.BEHAVIOR_JUDGE),
            Map.entry(GenerationTask.CONTEXT, "note: Pulse is 70/min."),
            Map.entry(GenerationTask.RESPONSE, "Missing: allergies."));
    String rendered = request.messages().toString();
    assertThat(rendered).contains("Missing: allergies.", "Behavior: X").doesNotContain("SECRET");

    BehaviorClassifier judge = new JudgeBehaviorClassifier();
    assertThat(
            judge.classify("It is not restraint. Behavior: restraint? No.\nBehaviour: Proactive"))
        .isEqualTo(new Classification(BehaviorType.PROACTIVE, "judge"));
    assertThat(judge.classify("I think it flags something.").present()).isFalse();
  }
}
