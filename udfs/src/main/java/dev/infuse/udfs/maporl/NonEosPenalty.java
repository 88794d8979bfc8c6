package dev.infuse.udfs.maporl;

import java.util.OptionalDouble;
import java.util.regex.Pattern;

/**
 * The reference's {@code non_eos_penalty}: a response is scored {@link #PENALTY} instead of its
 * verifier score when it is shorter than {@link #MIN_TOKENS} tokens (the configs' {@code
 * min_output_length = 50}), when it repeats some n-gram of 1 to {@link #MAX_NGRAM} units more than
 * {@link #MAX_REPEATS} times in a row (its {@code check_repeated_sequences(min_seq_length=1,
 * max_seq_length=20, max_repeats=3)}, which skips n-grams that are all digits), or when at a turn
 * after the first it holds no {@code \boxed{...}} (the regex {@code \\boxed{.*?}}, one line).
 *
 * <p>Infuse counts repetitions over whitespace-separated words, as it has no tokenizer here; the
 * reference counts over model tokens. The length test uses the token count the caller passes.
 */
public final class NonEosPenalty {
  /** The score a penalised response gets (the configs' {@code penalty_reward_value}). */
  public static final double PENALTY = -10.0;

  /** The fewest tokens a response may have. */
  public static final int MIN_TOKENS = 50;

  /** The longest n-gram checked for repetition. */
  public static final int MAX_NGRAM = 20;

  /** The most consecutive copies of an n-gram allowed. */
  public static final int MAX_REPEATS = 3;

  private static final Pattern BOXED = Pattern.compile("\\\\boxed\\{.*?}");
  private static final Pattern DIGITS = Pattern.compile("\\d+");

  private NonEosPenalty() {}

  /** {@link #PENALTY} when the response is penalised, else empty. */
  public static OptionalDouble penalty(String response, int responseTokens, int turn) {
    return reason(response, responseTokens, turn) == null
        ? OptionalDouble.empty()
        : OptionalDouble.of(PENALTY);
  }

  /**
   * Why the response is penalised, checked in the reference's order: {@code short} (under {@value
   * #MIN_TOKENS} tokens), {@code repetitive} (an n-gram repeated more than {@value #MAX_REPEATS}
   * times in a row), {@code no_boxed} (after turn 0, no {@code \boxed{}}); null when it is not.
   */
  public static String reason(String response, int responseTokens, int turn) {
    String text = response == null ? "" : response;
    if (responseTokens < MIN_TOKENS) {
      return "short";
    }
    if (repeats(text.strip().split("\\s+"))) {
      return "repetitive";
    }
    if (turn > 0 && !BOXED.matcher(text).find()) {
      return "no_boxed";
    }
    return null;
  }

  /**
   * Whether some n-gram (1..MAX_NGRAM units, not all digits) occurs more than MAX_REPEATS times in
   * a row.
   */
  static boolean repeats(String[] units) {
    int len = units.length;
    for (int n = 1; n <= Math.min(MAX_NGRAM, len); n++) {
      for (int start = 0; start + n <= len; start++) {
        if (DIGITS
            .matcher(String.join("", java.util.Arrays.asList(units).subList(start, start + n)))
            .matches()) {
          continue;
        }
        int copies = 1;
        int at = start + n;
        while (at + n <= len && same(units, start, at, n)) {
          copies++;
          if (copies > MAX_REPEATS) {
            return true;
          }
          at += n;
        }
      }
    }
    return false;
  }

  private static boolean same(String[] units, int a, int b, int n) {
    for (int k = 0; k < n; k++) {
      if (!units[a + k].equals(units[b + k])) {
        return false;
      }
    }
    return true;
  }
}
