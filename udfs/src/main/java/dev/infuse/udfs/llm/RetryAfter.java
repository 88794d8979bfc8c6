package dev.infuse.udfs.llm;

import java.time.Clock;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.OptionalLong;

/** Parses an HTTP {@code Retry-After} header: delay seconds, or an HTTP-date (RFC 7231 §7.1.3). */
final class RetryAfter {
  private RetryAfter() {}

  /** The wait in milliseconds, never negative; empty when the header is absent or unreadable. */
  static OptionalLong millis(String header, Clock clock) {
    if (header == null || header.isBlank()) {
      return OptionalLong.empty();
    }
    String value = header.trim();
    try {
      double seconds = Double.parseDouble(value);
      if (!Double.isFinite(seconds) || seconds < 0) {
        return OptionalLong.empty();
      }
      return OptionalLong.of((long) Math.ceil(Math.min(seconds, 86_400) * 1000));
    } catch (NumberFormatException notSeconds) {
      try {
        ZonedDateTime at = ZonedDateTime.parse(value, DateTimeFormatter.RFC_1123_DATE_TIME);
        return OptionalLong.of(
            Math.max(0, Duration.between(clock.instant(), at.toInstant()).toMillis()));
      } catch (DateTimeParseException notDate) {
        return OptionalLong.empty();
      }
    }
  }
}
