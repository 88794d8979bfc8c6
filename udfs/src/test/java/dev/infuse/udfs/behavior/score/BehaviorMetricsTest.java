package dev.infuse.udfs.behavior.score;

import static dev.infuse.udfs.behavior.BehaviorType.PROACTIVE;
import static dev.infuse.udfs.behavior.BehaviorType.REACTIVE;
import static dev.infuse.udfs.behavior.BehaviorType.RESTRAINT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.infuse.udfs.behavior.BehaviorType;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class BehaviorMetricsTest {
  /** 2 answer (reactive), 2 error + 1 omission (proactive), 1 restraint. */
  private static final List<BehaviorOutcome> GOLD =
      List.of(
          new BehaviorOutcome("a1", "answer", REACTIVE, REACTIVE, true),
          new BehaviorOutcome("a2", "answer", REACTIVE, REACTIVE, true),
          new BehaviorOutcome("e1", "error", PROACTIVE, PROACTIVE, true),
          new BehaviorOutcome("e2", "error", PROACTIVE, PROACTIVE, false),
          new BehaviorOutcome("o1", "omission", PROACTIVE, PROACTIVE, true),
          new BehaviorOutcome("r1", "restraint", RESTRAINT, RESTRAINT, null));

  private static List<BehaviorOutcome> predicting(BehaviorType type) {
    List<BehaviorOutcome> out = new ArrayList<>();
    for (BehaviorOutcome o : GOLD) {
      out.add(new BehaviorOutcome(o.taskId(), o.category(), o.gold(), type, o.contentCorrect()));
    }
    return out;
  }

  @Test
  void predictionsEqualToTheGoldScoreOne() {
    BehaviorMetrics.Result result = BehaviorMetrics.compute(GOLD);
    assertThat(result.value("macro_f1", "types")).isEqualTo(1.0);
    assertThat(result.value("macro_f1", "categories")).isEqualTo(1.0);
    assertThat(result.value("accuracy", "all")).isEqualTo(1.0);
    assertThat(result.value("over_proactivity", "restraint_tasks")).isEqualTo(0.0);
    assertThat(result.value("under_proactivity", "proactive_tasks")).isEqualTo(0.0);
    // Content on the three correct flags: e1 and o1 right, e2 wrong.
    assertThat(result.value("content_accuracy", "correct_flags")).isCloseTo(2.0 / 3, within(1e-12));
    assertThat(result.value("precision", "category=omission")).isEqualTo(1.0);
    assertThat(result.confusion().get("proactive"))
        .containsExactly(
            Map.entry("reactive", 0L),
            Map.entry("proactive", 3L),
            Map.entry("restraint", 0L),
            Map.entry("missing", 0L));
  }

  @Test
  void anAlwaysReactivePredictorScoresTheHandComputedMacroF1() {
    BehaviorMetrics.Result result = BehaviorMetrics.compute(predicting(REACTIVE));
    // Types (all three present in the gold), F1 = 2TP / (2TP + FP + FN):
    //   reactive:  TP 2, FP 4, FN 0 -> 4 / 8 = 0.5
    //   proactive: TP 0, FP 0, FN 3 -> 0
    //   restraint: TP 0, FP 0, FN 1 -> 0
    //   macro = (0.5 + 0 + 0) / 3 = 1/6
    assertThat(result.value("macro_f1", "types")).isCloseTo(1.0 / 6, within(1e-12));
    // Categories: answer is right (predicted answer x2); the 4 others land in other:reactive.
    // Labels: answer, error, omission, restraint, other:reactive.
    //   answer: TP 2, FP 0, FN 0 -> 1; error, omission, restraint: TP 0 -> 0;
    //   other:reactive: TP 0, FP 4 -> 0. macro = 1 / 5 = 0.2
    assertThat(result.value("macro_f1", "categories")).isCloseTo(0.2, within(1e-12));
    assertThat(result.value("precision", "type=reactive")).isCloseTo(2.0 / 6, within(1e-12));
    assertThat(result.value("recall", "type=proactive")).isEqualTo(0.0);
    assertThat(result.value("precision", "type=proactive")).isNaN();
    assertThat(result.value("under_proactivity", "proactive_tasks")).isEqualTo(1.0);
    assertThat(result.value("content_accuracy", "correct_flags")).isNaN();
    assertThat(result.confusion().get("restraint").get("reactive")).isEqualTo(1L);
  }

  @Test
  void aTypeAbsentFromGoldAndPredictionsIsLeftOutOfTheAverage() {
    // No restraint anywhere: the average is over reactive and proactive only.
    List<BehaviorOutcome> outcomes =
        List.of(
            new BehaviorOutcome("a", "answer", REACTIVE, REACTIVE, null),
            new BehaviorOutcome("b", "error", PROACTIVE, REACTIVE, null),
            new BehaviorOutcome("c", "error", PROACTIVE, PROACTIVE, null));
    // reactive: TP 1, FP 1, FN 0 -> 2/3; proactive: TP 1, FP 0, FN 1 -> 2/3; macro = 2/3
    BehaviorMetrics.Result result = BehaviorMetrics.compute(outcomes);
    assertThat(result.value("macro_f1", "types")).isCloseTo(2.0 / 3, within(1e-12));
    assertThat(result.metrics()).noneMatch(m -> m.subset().equals("type=restraint"));
  }

  @Test
  void aMissingPredictionIsAFalseNegativeAndItsOwnConfusionColumn() {
    List<BehaviorOutcome> outcomes =
        List.of(
            new BehaviorOutcome("p", "error", PROACTIVE, null, null),
            new BehaviorOutcome("q", "error", PROACTIVE, PROACTIVE, true),
            new BehaviorOutcome("r", "restraint", RESTRAINT, PROACTIVE, null),
            new BehaviorOutcome("s", "restraint", RESTRAINT, RESTRAINT, null));
    BehaviorMetrics.Result result = BehaviorMetrics.compute(outcomes);
    // proactive: TP 1, FP 1, FN 1 -> 0.5; restraint: TP 1, FP 0, FN 1 -> 2/3; missing no label
    assertThat(result.value("macro_f1", "types")).isCloseTo((0.5 + 2.0 / 3) / 2, within(1e-12));
    assertThat(result.confusion().get("proactive").get("missing")).isEqualTo(1L);
    assertThat(result.value("missing_rate", "all")).isEqualTo(0.25);
    assertThat(result.value("over_proactivity", "restraint_tasks")).isEqualTo(0.5);
    assertThat(result.value("under_proactivity", "proactive_tasks")).isEqualTo(0.5);
  }
}
