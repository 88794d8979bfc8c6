package dev.infuse.udfs.llm;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

class RetryAfterTest {
  private static final Clock CLOCK =
      Clock.fixed(Instant.parse("2024-05-01T12:00:00Z"), ZoneOffset.UTC);

  @Test
  void readsDelaySeconds() {
    assertThat(RetryAfter.millis("1", CLOCK)).hasValue(1_000);
    assertThat(RetryAfter.millis(" 2.5 ", CLOCK)).hasValue(2_500);
    assertThat(RetryAfter.millis("0", CLOCK)).hasValue(0);
  }

  @Test
  void readsAnHttpDate() {
    assertThat(RetryAfter.millis("Wed, 01 May 2024 12:00:07 GMT", CLOCK)).hasValue(7_000);
    assertThat(RetryAfter.millis("Wed, 01 May 2024 11:00:00 GMT", CLOCK)).hasValue(0);
  }

  @Test
  void ignoresWhatItCannotRead() {
    assertThat(RetryAfter.millis(null, CLOCK)).isEmpty();
    assertThat(RetryAfter.millis("", CLOCK)).isEmpty();
    assertThat(RetryAfter.millis("-3", CLOCK)).isEmpty();
    assertThat(RetryAfter.millis("soon", CLOCK)).isEmpty();
  }
}
