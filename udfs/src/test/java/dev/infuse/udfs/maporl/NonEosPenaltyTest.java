package dev.infuse.udfs.maporl;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.OptionalDouble;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class NonEosPenaltyTest {
  private static final String WORDS =
      IntStream.range(0, 60).mapToObj(i -> "w" + i).collect(Collectors.joining(" "));

  @Test
  void aLongBoxedResponseIsNotPenalised() {
    assertThat(NonEosPenalty.penalty(WORDS + " Answer: \\boxed{4}", 62, 1)).isEmpty();
  }

  @Test
  void shortResponsesArePenalised() {
    assertThat(NonEosPenalty.penalty("Answer: \\boxed{4}", 49, 0))
        .isEqualTo(OptionalDouble.of(-10));
    assertThat(NonEosPenalty.penalty(WORDS + " \\boxed{4}", 50, 0)).isEmpty();
  }

  @Test
  void aMissingBoxIsPenalisedAfterTheFirstTurnOnly() {
    assertThat(NonEosPenalty.penalty(WORDS, 60, 0)).isEmpty();
    assertThat(NonEosPenalty.penalty(WORDS, 60, 1)).isEqualTo(OptionalDouble.of(-10));
    assertThat(NonEosPenalty.penalty(WORDS + " \\boxed{", 60, 2)).isEqualTo(OptionalDouble.of(-10));
  }

  @Test
  void anNgramRepeatedMoreThanThreeTimesInARowIsPenalised() {
    String thrice = "so the answer is so the answer is so the answer is";
    String fourTimes = thrice + " so the answer is";
    assertThat(NonEosPenalty.penalty(WORDS + " " + thrice + " \\boxed{4}", 80, 1)).isEmpty();
    assertThat(NonEosPenalty.penalty(WORDS + " " + fourTimes + " \\boxed{4}", 80, 1))
        .isEqualTo(OptionalDouble.of(-10));
    // all-digit n-grams are skipped, as the reference skips numeric tokens
    assertThat(NonEosPenalty.penalty(WORDS + " 1 1 1 1 1 \\boxed{1}", 80, 1)).isEmpty();
  }
}
