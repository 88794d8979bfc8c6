package dev.infuse.udfs.behavior.score;

import static org.assertj.core.api.Assertions.assertThat;

import dev.infuse.udfs.behavior.GoldTarget;
import java.util.List;
import org.junit.jupiter.api.Test;

class ContentScorerTest {
  @Test
  void anErrorIsNamedByItsSentenceIdOrByQuotingTheWrongText() {
    GoldTarget gold =
        GoldTarget.error(
            5,
            "Culture tests indicate Neisseria gonorrhoeae.",
            "Culture tests indicate Trichomonas vaginalis.",
            null);
    assertThat(ContentScorer.contentCorrect(gold, "<proactive> Sentence 5 is wrong: whatever."))
        .isTrue();
    assertThat(
            ContentScorer.contentCorrect(
                gold, "The note says \"culture tests indicate NEISSERIA gonorrhoeae\" - wrong."))
        .isTrue();
    assertThat(ContentScorer.contentCorrect(gold, "Sentence 15 is wrong: the pulse.")).isFalse();
    assertThat(ContentScorer.contentCorrect(gold, "Sentence 4 is wrong: Neisseria.")).isFalse();
    assertThat(ContentScorer.contentCorrect(GoldTarget.error(-1, null, "x", null), "anything"))
        .isNull();
  }

  @Test
  void anOmissionIsNamedByItsItemOnWordBoundaries() {
    GoldTarget gold = GoldTarget.omission("allergy history", "penicillin");
    assertThat(ContentScorer.contentCorrect(gold, "Missing: Allergy-history.")).isTrue();
    assertThat(ContentScorer.contentCorrect(gold, "Missing: allergy historyx.")).isFalse();
    assertThat(ContentScorer.contentCorrect(gold, "Missing: social history.")).isFalse();
  }

  @Test
  void aConflictIsNamedByItsItemOrByBothValues() {
    GoldTarget gold = GoldTarget.conflict("heart rate", "88/min", "120/min");
    assertThat(ContentScorer.contentCorrect(gold, "Conflict: heart rate: 1 vs 2.")).isTrue();
    assertThat(ContentScorer.contentCorrect(gold, "Pulse 88/min earlier but 120/min now."))
        .isTrue();
    assertThat(ContentScorer.contentCorrect(gold, "Pulse 88/min is odd.")).isFalse();
  }

  @Test
  void anAnswerIsItsLetterWhenALetterIsGivenElseItsText() {
    GoldTarget gold = GoldTarget.answer("C", "Metformin");
    assertThat(ContentScorer.contentCorrect(gold, "<reactive> Answer: C. Metformin")).isTrue();
    assertThat(ContentScorer.contentCorrect(gold, "answer: (c)")).isTrue();
    assertThat(ContentScorer.contentCorrect(gold, "Answer: B. Metformin")).isFalse();
    assertThat(ContentScorer.contentCorrect(gold, "I would start metformin.")).isTrue();
    assertThat(ContentScorer.contentCorrect(GoldTarget.answer("42 mg", "42 mg"), "Answer: 42 mg"))
        .isTrue();
  }

  @Test
  void anOrderIsTheIndexesOrTheEventsInTheRightOrder() {
    GoldTarget gold =
        GoldTarget.order(List.of("admission", "surgery", "chest pain"), List.of(2, 0, 1));
    assertThat(ContentScorer.contentCorrect(gold, "Order: 2, 0, 1")).isTrue();
    assertThat(ContentScorer.contentCorrect(gold, "Order: chest pain; admission; surgery."))
        .isTrue();
    assertThat(ContentScorer.contentCorrect(gold, "Order: admission; chest pain; surgery."))
        .isFalse();
    assertThat(ContentScorer.contentCorrect(gold, "Order: chest pain; admission.")).isFalse();
  }

  @Test
  void aRestraintTargetHasNothingToCheck() {
    assertThat(ContentScorer.contentCorrect(GoldTarget.none(), "Sentence 1 is wrong")).isNull();
  }
}
