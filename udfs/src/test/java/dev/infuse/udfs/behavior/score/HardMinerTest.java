package dev.infuse.udfs.behavior.score;

import static dev.infuse.udfs.behavior.BehaviorType.PROACTIVE;
import static dev.infuse.udfs.behavior.BehaviorType.REACTIVE;
import static dev.infuse.udfs.behavior.BehaviorType.RESTRAINT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.infuse.udfs.behavior.BehaviorType;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class HardMinerTest {
  private static RunOutcome run(
      String run,
      String task,
      String category,
      BehaviorType gold,
      BehaviorType predicted,
      Boolean content) {
    return new RunOutcome(run, new BehaviorOutcome(task, category, gold, predicted, content));
  }

  /** Panel r1..r3. Failures: e1 3, e2 2 (one by wrong content), e3 1, e4 0, s1 2, s2 3. */
  private static List<RunOutcome> panel() {
    List<RunOutcome> out = new ArrayList<>();
    for (String r : List.of("r1", "r2", "r3")) {
      out.add(run(r, "e1", "error", PROACTIVE, RESTRAINT, null));
      out.add(run(r, "e4", "error", PROACTIVE, PROACTIVE, true));
      out.add(run(r, "s2", "restraint", RESTRAINT, null, null));
    }
    out.add(run("r1", "e2", "error", PROACTIVE, PROACTIVE, false)); // right flag, wrong content
    out.add(run("r2", "e2", "error", PROACTIVE, REACTIVE, null));
    out.add(run("r3", "e2", "error", PROACTIVE, PROACTIVE, null)); // nothing to check: no failure
    out.add(run("r1", "e3", "error", PROACTIVE, REACTIVE, null));
    out.add(run("r2", "e3", "error", PROACTIVE, PROACTIVE, true));
    out.add(run("r3", "e3", "error", PROACTIVE, PROACTIVE, true));
    out.add(run("r1", "s1", "restraint", RESTRAINT, PROACTIVE, null));
    out.add(run("r2", "s1", "restraint", RESTRAINT, PROACTIVE, null));
    out.add(run("r3", "s1", "restraint", RESTRAINT, RESTRAINT, null));
    return out;
  }

  @Test
  void selectsExactlyTheTasksAtLeastMRunsFail() {
    HardMiner.Result result = HardMiner.select(panel(), 2);
    assertThat(result.taskIds()).containsExactly("e1", "e2", "s1", "s2");
    assertThat(result.failures()).containsEntry("e1", 3).containsEntry("e2", 2);
    assertThat(result.runIds()).containsExactly("r1", "r2", "r3");
    assertThat(result.rule()).isEqualTo("2 of 3 runs fail");
    assertThat(HardMiner.select(panel(), 3).taskIds()).containsExactly("e1", "s2");
    assertThat(HardMiner.select(panel(), 1).taskIds())
        .containsExactly("e1", "e2", "e3", "s1", "s2");
  }

  @Test
  void aFractionIsResolvedAgainstThePanelSize() {
    // ceil(0.5 * 3) = 2
    HardMiner.Result result = HardMiner.selectFraction(panel(), 0.5, null);
    assertThat(result.m()).isEqualTo(2);
    assertThat(result.taskIds()).containsExactly("e1", "e2", "s1", "s2");
    assertThat(HardMiner.selectFraction(panel(), 1.0, null).m()).isEqualTo(3);
  }

  @Test
  void stratifiedKeepsTheMostFailedPerCategory() {
    HardMiner.Result result = HardMiner.select(panel(), 1, 1);
    assertThat(result.byCategory())
        .containsEntry("error", List.of("e1"))
        .containsEntry("restraint", List.of("s2"));
    assertThat(result.taskIds()).containsExactly("e1", "s2");
    assertThat(result.rule()).isEqualTo("1 of 3 runs fail, at most 1 per category");
  }

  @Test
  void aTaskWithoutEveryRunsOutcomeOrATwiceGivenOneIsRejected() {
    List<RunOutcome> gap = new ArrayList<>(panel());
    gap.add(run("r1", "x", "error", PROACTIVE, PROACTIVE, true));
    assertThatThrownBy(() -> HardMiner.select(gap, 1))
        .hasMessageContaining("task x has no outcome from run(s) [r2, r3]");
    List<RunOutcome> twice = new ArrayList<>(panel());
    twice.add(run("r1", "e1", "error", PROACTIVE, PROACTIVE, true));
    assertThatThrownBy(() -> HardMiner.select(twice, 1)).hasMessageContaining("twice");
    assertThatThrownBy(() -> HardMiner.select(panel(), 4)).hasMessageContaining("m: got 4");
  }
}
