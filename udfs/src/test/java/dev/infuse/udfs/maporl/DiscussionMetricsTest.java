package dev.infuse.udfs.maporl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DiscussionMetricsTest {
  private static AgentAnswer row(String q, String agent, int turn, String answer, boolean correct) {
    return new AgentAnswer(q, agent, turn, answer, correct);
  }

  /*
   * q1 (gold 5): t0 a 5, b 3, c invalid -> a three-way tie; invalid leaves it: {5, 3}, 5 is in: 1/2
   *              t1 a 5, b 5 (a held 5 at t0: a persuasion, to right), c 3 (b held 3: a
   *              persuasion, to wrong) -> majority 5: 1
   * q2 (gold 7): t0 a 7, b 7, c 7 -> 1, consensus
   *              t1 a 7, b 8 (nobody held 8: no persuasion), c 7 -> 1
   */
  private static final List<AgentAnswer> ROWS =
      List.of(
          row("q1", "a", 0, "5", true),
          row("q1", "b", 0, "3", false),
          row("q1", "c", 0, "invalid", false),
          row("q2", "a", 0, "7", true),
          row("q2", "b", 0, "7", true),
          row("q2", "c", 0, "7", true),
          row("q1", "a", 1, "5", true),
          row("q1", "b", 1, "5", true),
          row("q1", "c", 1, "3", false),
          row("q2", "a", 1, "7", true),
          row("q2", "b", 1, "8", false),
          row("q2", "c", 1, "7", true));

  @Test
  void turnZero() {
    DiscussionMetrics.TurnMetrics t0 = DiscussionMetrics.compute(ROWS).turns().get(0);
    assertThat(t0.turn()).isZero();
    assertThat(t0.questions()).isEqualTo(2);
    // (1/2 + 1) / 2
    assertThat(t0.majorityVote()).isCloseTo(0.75, within(1e-12));
    // 4 of 6 answers right
    assertThat(t0.accuracy()).isCloseTo(4 / 6.0, within(1e-12));
    assertThat(t0.agentAccuracy()).isEqualTo(Map.of("a", 1.0, "b", 0.5, "c", 0.5));
    // q2 only
    assertThat(t0.consensus()).isEqualTo(0.5);
    assertThat(t0.improved()).isNull();
    assertThat(t0.persuasions()).isZero();
  }

  @Test
  void turnOne() {
    DiscussionMetrics.TurnMetrics t1 = DiscussionMetrics.compute(ROWS).turns().get(1);
    assertThat(t1.majorityVote()).isEqualTo(1.0);
    assertThat(t1.accuracy()).isCloseTo(4 / 6.0, within(1e-12));
    assertThat(t1.consensus()).isEqualTo(0.0);
    // 6 agent-answers at both turns: q1 b wrong -> right, q2 b right -> wrong, 4 unchanged
    assertThat(t1.improved()).isCloseTo(1 / 6.0, within(1e-12));
    assertThat(t1.declined()).isCloseTo(1 / 6.0, within(1e-12));
    assertThat(t1.unchanged()).isCloseTo(4 / 6.0, within(1e-12));
    // the reference's per-question majority-vote change: q1 0.5 -> 1 improved, q2 1 -> 1
    assertThat(t1.majorityImproved()).isEqualTo(1);
    assertThat(t1.majorityDeclined()).isZero();
    assertThat(t1.majorityUnchanged()).isEqualTo(1);
    assertThat(t1.persuasions()).isEqualTo(2);
    assertThat(t1.persuasionsToCorrect()).isEqualTo(1);
  }

  @Test
  void majorityVoteTies() {
    // invalid twice is the majority on its own: 0
    assertThat(
            DiscussionMetrics.majorityVote(
                List.of(
                    row("q", "a", 0, "invalid", false),
                    row("q", "b", 0, "invalid", false),
                    row("q", "c", 0, "5", true))))
        .isEqualTo(0.0);
    // 2 against 2, the right answer among them: 1/2
    assertThat(
            DiscussionMetrics.majorityVote(
                List.of(
                    row("q", "a", 0, "5", true),
                    row("q", "b", 0, "5", true),
                    row("q", "c", 0, "3", false),
                    row("q", "d", 0, "3", false))))
        .isEqualTo(0.5);
    // the right answer outvoted: 0
    assertThat(
            DiscussionMetrics.majorityVote(
                List.of(
                    row("q", "a", 0, "5", true),
                    row("q", "b", 0, "3", false),
                    row("q", "c", 0, "3", false))))
        .isEqualTo(0.0);
  }

  @Test
  void repeatedRowsAreRejected() {
    assertThatThrownBy(
            () ->
                DiscussionMetrics.compute(
                    List.of(row("q", "a", 0, "5", true), row("q", "a", 0, "6", false))))
        .hasMessageContaining("two answers for (question q, agent a, turn 0)");
  }
}
