package dev.infuse.udfs.score;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class JudgeVerdictTest {
  @Test
  void acceptsOneVerdictOnTheLastLine() {
    assertThat(JudgeVerdict.parse("The numbers agree.\nVERDICT: CORRECT").correct()).isTrue();
    assertThat(JudgeVerdict.parse("Off by a factor of ten.\n\nverdict: incorrect.\n").correct())
        .isFalse();
    assertThat(JudgeVerdict.parse("**VERDICT:** INCORRECT").correct()).isFalse();
  }

  @Test
  void refusesAnythingElse() {
    assertThat(JudgeVerdict.parse("It looks right to me.").problem())
        .contains("got 0 VERDICT line(s)");
    assertThat(JudgeVerdict.parse("VERDICT: CORRECT\nVERDICT: INCORRECT").problem())
        .contains("got 2 VERDICT line(s)");
    assertThat(JudgeVerdict.parse("VERDICT: CORRECT\nBut on reflection, maybe not.").problem())
        .contains("followed by more text");
    assertThat(JudgeVerdict.parse("VERDICT: PARTIALLY CORRECT").problem())
        .contains("expected CORRECT or INCORRECT");
    assertThat(JudgeVerdict.parse("  ").parsed()).isFalse();
  }
}
